"""The live-class store for several replicas: one Redis server that every replica talks to.

Keys of a room share the hash tag ``{code}`` (one slot, should the server ever be a cluster):
``lc:{CODE}:meta`` (hash: key_hash, view, locked), ``:seats`` (sorted set: seat -> when last seen, in the
server's milliseconds; 0 after it left), ``:removed`` (set), ``:names`` (hash seat -> nickname, only seats that
gave one), ``:revealed`` (set), ``:questions`` (set) and ``:a:<question>`` (hash seat -> choice). Each
check-then-write (join under the cap, answer only from a seat that joined) is one Lua script, so it is atomic
however many replicas write at once; each reads the server's clock (TIME), so replicas whose clocks differ still
agree on which seats are active, and each refreshes the expiry of every key of the room: the room expires whole,
``ttl_s`` after its last write.

A call waits at most TIMEOUT_S for the server and is not retried here: a stopped or restarting server makes that
call fail fast (``unreachable``), and the app retries what matters (answers) with its own backoff.
"""

from __future__ import annotations

import secrets

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from .store import Join, RoomState, Seat, Store

TIMEOUT_S = 1.0
_PARTS = ("meta", "seats", "removed", "names", "revealed", "questions")

# KEYS[1] = the room's meta key; ARGV[1] = ttl in ms. Every key of the room gets the same expiry.
_COMMON = """
local function touch(meta, ttl)
  local base = string.sub(meta, 1, -5)
  for _, suffix in ipairs({'meta', 'seats', 'removed', 'names', 'revealed', 'questions'}) do
    redis.call('PEXPIRE', base .. suffix, ttl)
  end
  for _, q in ipairs(redis.call('SMEMBERS', base .. 'questions')) do redis.call('PEXPIRE', base .. 'a:' .. q, ttl) end
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
"""
# KEYS: meta, seats, names, removed; ARGV: ttl, seat, cap, nickname ('' keeps the seat's nickname), active ms
JOIN = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('SISMEMBER', KEYS[4], ARGV[2]) == 1 then return -4 end
local now = now_ms()
local seen = redis.call('ZSCORE', KEYS[2], ARGV[2])
if not seen and redis.call('HGET', KEYS[1], 'locked') == '1' then return -3 end
local active = seen and tonumber(seen) >= now - tonumber(ARGV[5])
if not active and redis.call('ZCOUNT', KEYS[2], now - tonumber(ARGV[5]), '+inf') >= tonumber(ARGV[3]) then
  return -2
end
redis.call('ZADD', KEYS[2], now, ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[4]) end
touch(KEYS[1], ARGV[1])
if active then return 0 end
return 1
"""
# KEYS: meta, seats; ARGV: ttl, seat, 'seen' or 'leave'
SEEN = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return 0 end
local seen = now_ms()
if ARGV[3] == 'leave' then seen = 0 end
redis.call('ZADD', KEYS[2], seen, ARGV[2])
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, seats, names, removed, questions; ARGV: ttl, seat
REMOVE = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local base = string.sub(KEYS[1], 1, -5)
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[2])
for _, q in ipairs(redis.call('SMEMBERS', KEYS[5])) do redis.call('HDEL', base .. 'a:' .. q, ARGV[2]) end
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, seats, names; ARGV: ttl, seat, nickname ('' removes it)
NAME = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[3], ARGV[2]) else redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, seats, questions, answers of the question; ARGV: ttl, seat, question, choice
ANSWER = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('ZSCORE', KEYS[2], ARGV[2]) then return 0 end
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
redis.call('ZADD', KEYS[2], now_ms(), ARGV[2])
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, the set or hash written; ARGV: ttl, kind ('sadd', 'view' or 'locked'), value
WRITE = _COMMON + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == 'sadd' then redis.call('SADD', KEYS[2], ARGV[3]) else redis.call('HSET', KEYS[1], ARGV[2], ARGV[3]) end
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, seats, revealed; ARGV: active ms. The room in one read, its active seats by the server's clock.
ROOM = _COMMON + """
local meta = redis.call('HGETALL', KEYS[1])
if #meta == 0 then return false end
local seats = redis.call('ZCOUNT', KEYS[2], now_ms() - tonumber(ARGV[1]), '+inf')
return {meta, seats, redis.call('SMEMBERS', KEYS[3])}
"""
# KEYS: seats, names; ARGV: active ms. Active seats, newest first, with their nickname and age in ms.
SEATS = _COMMON + """
local now = now_ms()
local rows = redis.call('ZRANGE', KEYS[1], '+inf', now - tonumber(ARGV[1]), 'BYSCORE', 'REV', 'WITHSCORES')
local out = {}
for i = 1, #rows, 2 do
  table.insert(out, {rows[i], redis.call('HGET', KEYS[2], rows[i]) or '', now - tonumber(rows[i + 1])})
end
return out
"""
_JOINS = {1: Join.JOINED, 0: Join.ALREADY, -2: Join.FULL, -3: Join.LOCKED, -4: Join.REMOVED, -1: Join.MISSING}


def _key(code: str, part: str) -> str:
    return f"lc:{{{code}}}:{part}"


class RedisStore(Store):
    # OutOfMemoryError: a full server (noeviction) refuses writes until memory frees; the app retries them
    unreachable = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, redis.exceptions.OutOfMemoryError)

    def __init__(self, url: str, ttl_s: float, active_s: float = 90.0):
        self.ttl_s, self.active_s = float(ttl_s), float(active_s)
        self._ttl_ms = max(1, int(self.ttl_s * 1000))
        # the client keeps a pool of connections shared by the threads of this process
        self._r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT_S,
                                       socket_connect_timeout=TIMEOUT_S, retry=Retry(NoBackoff(), 0),
                                       health_check_interval=30)
        scripts = (JOIN, SEEN, REMOVE, NAME, ANSWER, WRITE, ROOM, SEATS)
        (self._join, self._seen, self._remove, self._name, self._answer, self._write, self._room,
         self._seats) = (self._r.register_script(s) for s in scripts)

    @property
    def _active_ms(self) -> int:
        return max(1, int(self.active_s * 1000))

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
        return bool(made)

    def room(self, code):
        found = self._room(keys=[_key(code, p) for p in ("meta", "seats", "revealed")], args=[self._active_ms])
        if not found:
            return None
        flat, seats, revealed = found
        meta = dict(zip(flat[::2], flat[1::2], strict=True))
        return RoomState(meta["key_hash"], meta.get("view", ""), frozenset(revealed), int(seats),
                         meta.get("locked") == "1")

    def member(self, code, seat):
        pipe = self._r.pipeline(transaction=False)
        pipe.exists(_key(code, "meta"))
        pipe.zscore(_key(code, "seats"), seat)
        exists, score = pipe.execute()
        return bool(exists) and score is not None

    def join(self, code, seat, cap, nickname=""):
        keys = [_key(code, p) for p in ("meta", "seats", "names", "removed")]
        return _JOINS[int(self._join(keys=keys, args=[self._ttl_ms, seat, cap, nickname, self._active_ms]))]

    def seen(self, code, seat):
        return bool(self._seen(keys=[_key(code, "meta"), _key(code, "seats")], args=[self._ttl_ms, seat, "seen"]))

    def leave(self, code, seat):
        self._seen(keys=[_key(code, "meta"), _key(code, "seats")], args=[self._ttl_ms, seat, "leave"])

    def remove(self, code, seat):
        keys = [_key(code, p) for p in ("meta", "seats", "names", "removed", "questions")]
        return bool(self._remove(keys=keys, args=[self._ttl_ms, seat]))

    def lock(self, code, locked):
        return bool(self._write(keys=[_key(code, "meta"), _key(code, "meta")],
                                args=[self._ttl_ms, "locked", "1" if locked else "0"]))

    def seats(self, code):
        rows = self._seats(keys=[_key(code, "seats"), _key(code, "names")], args=[self._active_ms])
        return [Seat(seat, nickname, max(0.0, int(age) / 1000)) for seat, nickname, age in rows]

    def set_nickname(self, code, seat, nickname):
        keys = [_key(code, "meta"), _key(code, "seats"), _key(code, "names")]
        return bool(self._name(keys=keys, args=[self._ttl_ms, seat, nickname]))

    def nicknames(self, code):
        return self._r.hgetall(_key(code, "names"))

    def answered(self, code, question):
        return frozenset(self._r.hkeys(_key(code, f"a:{question}")))

    def answer(self, code, seat, question, choice):
        keys = [_key(code, "meta"), _key(code, "seats"), _key(code, "questions"), _key(code, f"a:{question}")]
        return bool(self._answer(keys=keys, args=[self._ttl_ms, seat, question, int(choice)]))

    def counts(self, code, question):
        tally: dict[int, int] = {}
        for choice in self._r.hvals(_key(code, f"a:{question}")):
            tally[int(choice)] = tally.get(int(choice), 0) + 1
        return tally

    def reveal(self, code, question):
        return bool(self._write(keys=[_key(code, "meta"), _key(code, "revealed")],
                                args=[self._ttl_ms, "sadd", question]))

    def set_view(self, code, view):
        return bool(self._write(keys=[_key(code, "meta"), _key(code, "meta")], args=[self._ttl_ms, "view", view]))

    def close(self, code):
        questions = self._r.smembers(_key(code, "questions"))
        self._r.delete(*(_key(code, part) for part in _PARTS), *(_key(code, f"a:{q}") for q in questions))

    def hit(self, name, window_s):
        key = f"lc:hits:{name}:{int(window_s)}"
        pipe = self._r.pipeline()
        pipe.incr(key)
        pipe.expire(key, int(window_s), nx=True)  # the window starts at the first event in it
        count, _ = pipe.execute()
        return int(count)

    def hits(self, name, window_s):
        return int(self._r.get(f"lc:hits:{name}:{int(window_s)}") or 0)
