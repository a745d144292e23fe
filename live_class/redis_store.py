"""The live-class store for several replicas: one Redis server that every replica talks to.

Keys of a room share the hash tag ``{code}`` (one slot, should the server ever be a cluster):
``lc:{CODE}:meta`` (hash: key_hash, view, locked, ended, active: the last write in ms), ``:seats`` (sorted set:
seat -> when last seen, in the server's milliseconds; 0 after it left), ``:removed`` (set), ``:names`` (hash seat
-> nickname, only seats that gave one), ``:revealed`` (set), ``:rounds`` (hash question -> round, once past the
first), ``:info`` (hash question -> its QuestionInfo as JSON), ``:questions`` (set) and ``:a:<question>:<round>``
(hash seat -> "choice:ms"). Each check-then-write (join under the cap, answer only from a seat that joined, in the
question's open round) is one Lua script, so it is atomic however many replicas write at once; each reads the
server's clock (TIME, plus the store's test offset), so replicas whose clocks differ still agree, and each
refreshes the expiry of every key of the room: the room is kept whole ``ttl_s`` after its last write.

Kept results need a durable server: ``appendonly yes`` (``deploy/redis.conf``), its data on a volume, and
``maxmemory-policy noeviction`` so that a full server refuses writes rather than dropping a class's answers.

A call waits at most TIMEOUT_S for the server and is not retried here: a stopped or restarting server makes that
call fail fast (``unreachable``), and the app retries what matters (answers) with its own backoff.
"""

from __future__ import annotations

import secrets

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .store import Answered, AnswerRow, Join, RoomDump, RoomState, Seat, Store, clock_offset_s

TIMEOUT_S = 1.0
ROUNDS = (1, 2)
_PARTS = ("meta", "seats", "removed", "names", "revealed", "rounds", "info", "questions", "course")

# ARGV[1] = ttl in ms, ARGV[2] = the clock's offset in ms, in every script. Every key of the room gets one expiry.
_COMMON = """
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2])
end
local function touch(meta)
  local ttl = ARGV[1]
  local base = string.sub(meta, 1, -5)
  redis.call('HSET', meta, 'active', now_ms())
  for _, suffix in ipairs({'meta', 'seats', 'removed', 'names', 'revealed', 'rounds', 'info', 'questions',
                           'course'}) do
    redis.call('PEXPIRE', base .. suffix, ttl)
  end
  for _, q in ipairs(redis.call('SMEMBERS', base .. 'questions')) do
    redis.call('PEXPIRE', base .. 'a:' .. q .. ':1', ttl)
    redis.call('PEXPIRE', base .. 'a:' .. q .. ':2', ttl)
  end
end
"""
# KEYS: meta, seats, names, removed; ARGV: ttl, offset, seat, cap, nickname ('' keeps the seat's), active ms
JOIN = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'ended') == '1' then return -5 end
if redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 1 then return -4 end
local now = now_ms()
local seen = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not seen and redis.call('HGET', KEYS[1], 'locked') == '1' then return -3 end
local active = seen and tonumber(seen) >= now - tonumber(ARGV[6])
if not active and redis.call('ZCOUNT', KEYS[2], now - tonumber(ARGV[6]), '+inf') >= tonumber(ARGV[4]) then
  return -2
end
redis.call('ZADD', KEYS[2], now, ARGV[3])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[5]) end
touch(KEYS[1])
if active then return 0 end
return 1
"""
# KEYS: meta, seats; ARGV: ttl, offset, seat, 'seen' or 'leave'
SEEN = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[3]) then return 0 end
local seen = now_ms()
if ARGV[4] == 'leave' then seen = 0 end
redis.call('ZADD', KEYS[2], seen, ARGV[3])
touch(KEYS[1])
return 1
"""
# KEYS: meta, seats, names, removed, questions; ARGV: ttl, offset, seat
REMOVE = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local base = string.sub(KEYS[1], 1, -5)
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[4], ARGV[3])
for _, q in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  redis.call('HDEL', base .. 'a:' .. q .. ':1', ARGV[3])
  redis.call('HDEL', base .. 'a:' .. q .. ':2', ARGV[3])
end
touch(KEYS[1])
return 1
"""
# KEYS: meta, seats, a hash by seat (names, course); ARGV: ttl, offset, seat, value ('' removes it)
NAME = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[3]) then return 0 end
if ARGV[4] == '' then redis.call('HDEL', KEYS[3], ARGV[3]) else redis.call('HSET', KEYS[3], ARGV[3], ARGV[4]) end
touch(KEYS[1])
return 1
"""
# KEYS: meta, seats, questions, revealed, rounds, answers of the question and round;
# ARGV: ttl, offset, seat, question, round, choice
ANSWER = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[3]) then return 'not_seated' end
if redis.call('HGET', KEYS[1], 'ended') == '1' then return 'ended' end
if redis.call('SISMEMBER', KEYS[4], ARGV[4]) == 1 then return 'revealed' end
if (redis.call('HGET', KEYS[5], ARGV[4]) or '1') ~= ARGV[5] then return 'round' end
local now = now_ms()
local old = redis.call('HGET', KEYS[6], ARGV[3])
if not old or string.match(old, '^[^:]*') ~= ARGV[6] then
  redis.call('HSET', KEYS[6], ARGV[3], ARGV[6] .. ':' .. now)
end
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('ZADD', KEYS[2], now, ARGV[3])
touch(KEYS[1])
return 'saved'
"""
# KEYS: meta, revealed, rounds; ARGV: ttl, offset, question, round
ROUND = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('SISMEMBER', KEYS[2], ARGV[3]) == 1 then return 0 end
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
touch(KEYS[1])
return 1
"""
# KEYS: meta, the set or hash written; ARGV: ttl, offset, kind ('sadd', 'hset' or a meta field), value[, field]
WRITE = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[3] == 'sadd' then redis.call('SADD', KEYS[2], ARGV[4])
elseif ARGV[3] == 'hset' then redis.call('HSET', KEYS[2], ARGV[5], ARGV[4])
else redis.call('HSET', KEYS[1], ARGV[3], ARGV[4]) end
touch(KEYS[1])
return 1
"""
# KEYS: meta, seats, revealed, rounds; ARGV: ttl, offset, active ms. The room in one read, by the server's clock.
ROOM = _COMMON + """
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then return false end
local now = now_ms()
local seats = redis.call('ZCOUNT', KEYS[2], now - tonumber(ARGV[3]), '+inf')
return {meta, seats, redis.call('SMEMBERS', KEYS[3]), redis.call('HGETALL', KEYS[4]), tostring(now)}
"""
# KEYS: seats, names; ARGV: ttl, offset, active ms. Active seats, newest first, with their nickname and age in ms.
SEATS = _COMMON + """
local now = now_ms()
local rows = redis.call('ZRANGE', KEYS[1], '+inf', now - tonumber(ARGV[3]), 'BYSCORE', 'REV', 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  table.insert(out, {rows[i], redis.call('HGET', KEYS[2], rows[i]) or '', now - tonumber(rows[i + 1])})
end
return out
"""
# KEYS: the events' sorted set; ARGV: ttl (unused), offset, window ms, limit, a unique member. A sliding window.
HIT = _COMMON + """
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[3]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
# KEYS: the events' sorted set; ARGV: ttl (unused), offset, window ms
HITS = _COMMON + """
return redis.call('ZCOUNT', KEYS[1], '(' .. (now_ms() - tonumber(ARGV[3])), '+inf')
"""
# KEYS: seats (for the seat) of the room, its questions; ARGV: ttl (unused), offset, seat. One seat's own answers.
CHOICES = _COMMON + """
local base = string.sub(KEYS[1], 1, -6)
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  for r = 1, 2 do
    local v = redis.call('HGET', base .. 'a:' .. q .. ':' .. r, ARGV[3])
    if v then table.insert(out, {q, r, v}) end
  end
end
return out
"""
_JOINS = {1: Join.JOINED, 0: Join.ALREADY, -2: Join.FULL, -3: Join.LOCKED, -4: Join.REMOVED, -5: Join.ENDED,
          -1: Join.MISSING}


def _key(code: str, part: str) -> str:
    return f"lc:{{{code}}}:{part}"


def _choice(value: str) -> tuple[int, float]:
    """A kept answer "choice:ms" as (choice, Unix seconds)."""
    choice, _, at = value.partition(":")
    return int(choice), int(at or 0) / 1000


class RedisStore(Store):
    # OutOfMemoryError: a full server (noeviction) refuses writes until memory frees; the app retries them
    unreachable = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, redis.exceptions.OutOfMemoryError)

    def __init__(self, url: str, ttl_s: float, active_s: float = 90.0):
        self.ttl_s, self.active_s = float(ttl_s), float(active_s)
        self._ttl_ms = max(1, int(self.ttl_s * 1000))
        self._offset_ms = int(clock_offset_s() * 1000)
        # the client keeps a pool of connections shared by the threads of this process
        self._r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT_S,
                                       socket_connect_timeout=TIMEOUT_S, retry=Retry(NoBackoff(), 0),
                                       health_check_interval=30)
        scripts = (JOIN, SEEN, REMOVE, NAME, ANSWER, ROUND, WRITE, ROOM, SEATS, HIT, HITS, CHOICES)
        (self._join, self._seen, self._remove, self._name, self._answer, self._round, self._write, self._room,
         self._seats, self._hit, self._hits, self._choices) = (self._r.register_script(s) for s in scripts)

    def _run(self, script, keys: list[str], *args):
        return script(keys=keys, args=[self._ttl_ms, self._offset_ms, *args])

    @property
    def _active_ms(self) -> int:
        return max(1, int(self.active_s * 1000))

    def now(self):
        seconds, micros = self._r.time()
        return seconds + micros / 1e6 + self._offset_ms / 1000

    def ping(self) -> bool:
        return bool(self._r.ping())

    def secret(self):
        self._r.set("lc:seat_secret", secrets.token_hex(32), nx=True)
        return bytes.fromhex(self._r.get("lc:seat_secret"))

    def create(self, code, key_hash):
        meta = _key(code, "meta")
        pipe = self._r.pipeline()  # MULTI/EXEC: the hash and its expiry together
        pipe.hsetnx(meta, "key_hash", key_hash)
        pipe.hsetnx(meta, "view", "")
        pipe.pexpire(meta, self._ttl_ms)
        made, _, _ = pipe.execute()
        if made:
            self._write_room(code, "meta", "active", "0")  # the clock's now, through touch()
        return bool(made)

    def room(self, code):
        keys = [_key(code, p) for p in ("meta", "seats", "revealed", "rounds")]
        found = self._run(self._room, keys, self._active_ms)
        if not found:
            return None
        flat, seats, revealed, rounds, now = found
        meta = dict(zip(flat[::2], flat[1::2], strict=True))
        rounds = {q: int(r) for q, r in zip(rounds[::2], rounds[1::2], strict=True)}
        idle_s = max(0.0, (int(now) - int(meta.get("active") or now)) / 1000)
        if idle_s > self.ttl_s:  # the server's expiry runs on its own clock: past retention on the offset one too
            self.delete(code)
            return None
        return RoomState(meta["key_hash"], meta.get("view", ""), frozenset(revealed), int(seats),
                         meta.get("locked") == "1", rounds, meta.get("ended") == "1", idle_s)

    def member(self, code, seat):
        pipe = self._r.pipeline(transaction=False)
        pipe.exists(_key(code, "meta"))
        pipe.zscore(_key(code, "seats"), seat)
        exists, score = pipe.execute()
        return bool(exists) and score is not None

    def join(self, code, seat, cap, nickname=""):
        keys = [_key(code, p) for p in ("meta", "seats", "names", "removed")]
        return _JOINS[int(self._run(self._join, keys, seat, cap, nickname, self._active_ms))]

    def seen(self, code, seat):
        return bool(self._run(self._seen, [_key(code, "meta"), _key(code, "seats")], seat, "seen"))

    def leave(self, code, seat):
        self._run(self._seen, [_key(code, "meta"), _key(code, "seats")], seat, "leave")

    def remove(self, code, seat):
        keys = [_key(code, p) for p in ("meta", "seats", "names", "removed", "questions")]
        return bool(self._run(self._remove, keys, seat))

    def _write_room(self, code: str, part: str, kind: str, value: str, field: str = "") -> bool:
        return bool(self._run(self._write, [_key(code, "meta"), _key(code, part)], kind, value, field))

    def lock(self, code, locked):
        return self._write_room(code, "meta", "locked", "1" if locked else "0")

    def end(self, code, ended):
        return self._write_room(code, "meta", "ended", "1" if ended else "0")

    def seats(self, code):
        rows = self._run(self._seats, [_key(code, "seats"), _key(code, "names")], self._active_ms)
        return [Seat(seat, nickname, max(0.0, int(age) / 1000)) for seat, nickname, age in rows]

    def set_nickname(self, code, seat, nickname):
        keys = [_key(code, "meta"), _key(code, "seats"), _key(code, "names")]
        return bool(self._run(self._name, keys, seat, nickname))

    def nicknames(self, code):
        return self._r.hgetall(_key(code, "names"))

    def set_course(self, code, seat, progress):
        keys = [_key(code, "meta"), _key(code, "seats"), _key(code, "course")]  # NAME sets any seat's field
        return bool(self._run(self._name, keys, seat, progress))

    def answered(self, code, question, round=1):
        return frozenset(self._r.hkeys(_key(code, f"a:{question}:{int(round)}")))

    def votes(self, code, question, round=1):
        return {seat: _choice(v)[0] for seat, v in self._r.hgetall(_key(code, f"a:{question}:{int(round)}")).items()}

    def answer(self, code, seat, question, round, choice):
        keys = [_key(code, p) for p in ("meta", "seats", "questions", "revealed", "rounds", f"a:{question}:{round}")]
        return Answered(self._run(self._answer, keys, seat, question, int(round), int(choice)))

    def choices(self, code, seat):
        rows = self._run(self._choices, [_key(code, "seats"), _key(code, "questions")], seat)
        return {(q, int(r)): _choice(v)[0] for q, r, v in rows}

    def counts(self, code, question, round=1):
        tally: dict[int, int] = {}
        for value in self._r.hvals(_key(code, f"a:{question}:{int(round)}")):
            choice = _choice(value)[0]
            tally[choice] = tally.get(choice, 0) + 1
        return tally

    def reveal(self, code, question):
        return self._write_room(code, "revealed", "sadd", question)

    def open_round(self, code, question, round):
        keys = [_key(code, p) for p in ("meta", "revealed", "rounds")]
        return bool(self._run(self._round, keys, question, int(round)))

    def describe(self, code, question, info):
        return self._write_room(code, "info", "hset", info, question)

    def set_view(self, code, view):
        return self._write_room(code, "meta", "view", view)

    def dump(self, code):
        state = self.room(code)
        if state is None:
            return None
        questions = sorted(self._r.smembers(_key(code, "questions")))
        pipe = self._r.pipeline(transaction=True)  # MULTI/EXEC: one moment's answers, names and questions
        for question in questions:
            for round in ROUNDS:
                pipe.hgetall(_key(code, f"a:{question}:{round}"))
        pipe.hgetall(_key(code, "names"))
        pipe.hgetall(_key(code, "info"))
        pipe.hgetall(_key(code, "course"))
        *tables, names, info, courses = pipe.execute()
        pairs = [(q, r) for q in questions for r in ROUNDS]
        answers = [AnswerRow(q, r, seat, *_choice(value))
                   for (q, r), table in zip(pairs, tables, strict=True) for seat, value in table.items()]
        return RoomDump(state, tuple(sorted(answers, key=lambda a: a.at)), names, info, courses)

    def delete(self, code):
        questions = self._r.smembers(_key(code, "questions"))
        self._r.delete(*(_key(code, part) for part in _PARTS),
                       *(_key(code, f"a:{q}:{r}") for q in questions for r in ROUNDS))

    def hit(self, name, window_s, limit):
        return bool(self._run(self._hit, [f"lc:hits:{name}"], int(window_s * 1000), int(limit),
                              secrets.token_hex(8)))

    def hits(self, name, window_s):
        return int(self._run(self._hits, [f"lc:hits:{name}"], int(window_s * 1000)))
