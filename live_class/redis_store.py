"""The live-class store for several replicas: one Redis server that every replica talks to.

Keys of a room share the hash tag ``{code}`` (one slot, should the server ever be a cluster):
``lc:{CODE}:meta`` (hash: key_hash, view), ``:seats`` (set), ``:names`` (hash seat -> nickname, only seats that
gave one), ``:revealed`` (set), ``:questions`` (set) and ``:a:<question>`` (hash seat -> choice). Each
check-then-write (join under the cap, answer only from a seat that joined) is one Lua script, so it is atomic
however many replicas write at once, and each one refreshes the expiry of every key of the
room: the room expires whole, ``ttl_s`` after its last write.
"""

from __future__ import annotations

import redis

from .store import Join, RoomState, Store

# KEYS[1] = the room's meta key; ARGV[1] = ttl in ms. Every key of the room gets the same expiry.
_TOUCH = """
local function touch(meta, ttl)
  local base = string.sub(meta, 1, -5)
  for _, suffix in ipairs({'meta', 'seats', 'names', 'revealed', 'questions'}) do
    redis.call('PEXPIRE', base .. suffix, ttl)
  end
  for _, q in ipairs(redis.call('SMEMBERS', base .. 'questions')) do redis.call('PEXPIRE', base .. 'a:' .. q, ttl) end
end
"""
# KEYS: meta, seats, names; ARGV: ttl, seat, cap, nickname ('' keeps the seat's nickname as it is)
JOIN = _TOUCH + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local result = 0
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then
  if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return -2 end
  redis.call('SADD', KEYS[2], ARGV[2])
  result = 1
end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[4]) end
if result == 1 or ARGV[4] ~= '' then touch(KEYS[1], ARGV[1]) end
return result
"""
# KEYS: meta, seats, names; ARGV: ttl, seat, nickname ('' removes it)
NAME = _TOUCH + """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[3], ARGV[2]) else redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, seats, questions, answers of the question; ARGV: ttl, seat, question, choice
ANSWER = _TOUCH + """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 0 then return 0 end
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[2], ARGV[4])
touch(KEYS[1], ARGV[1])
return 1
"""
# KEYS: meta, the set or hash written; ARGV: ttl, kind ('sadd' or 'view'), value
WRITE = _TOUCH + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[2] == 'view' then redis.call('HSET', KEYS[1], 'view', ARGV[3]) else redis.call('SADD', KEYS[2], ARGV[3]) end
touch(KEYS[1], ARGV[1])
return 1
"""
_JOINS = {1: Join.JOINED, 0: Join.ALREADY, -2: Join.FULL, -1: Join.MISSING}


def _key(code: str, part: str) -> str:
    return f"lc:{{{code}}}:{part}"


class RedisStore(Store):
    def __init__(self, url: str, ttl_s: float):
        self.ttl_s = float(ttl_s)
        self._ttl_ms = max(1, int(self.ttl_s * 1000))
        # the client keeps a pool of connections shared by the threads of this process
        self._r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, health_check_interval=30)
        self._join, self._name, self._answer, self._write = (self._r.register_script(s)
                                                             for s in (JOIN, NAME, ANSWER, WRITE))

    def ping(self) -> bool:
        return bool(self._r.ping())

    def create(self, code, key_hash):
        meta = _key(code, "meta")
        pipe = self._r.pipeline()  # MULTI/EXEC: the hash and its expiry together
        pipe.hsetnx(meta, "key_hash", key_hash)
        pipe.hsetnx(meta, "view", "")
        pipe.pexpire(meta, self._ttl_ms)
        made, _, _ = pipe.execute()
        return bool(made)

    def room(self, code):
        pipe = self._r.pipeline(transaction=False)
        pipe.hgetall(_key(code, "meta"))
        pipe.smembers(_key(code, "revealed"))
        pipe.scard(_key(code, "seats"))
        meta, revealed, seats = pipe.execute()
        if "key_hash" not in meta:
            return None
        return RoomState(meta["key_hash"], meta.get("view", ""), frozenset(revealed), int(seats))

    def join(self, code, seat, cap, nickname=""):
        keys = [_key(code, "meta"), _key(code, "seats"), _key(code, "names")]
        return _JOINS[int(self._join(keys=keys, args=[self._ttl_ms, seat, cap, nickname]))]

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
        self._r.delete(*(_key(code, part) for part in ("meta", "seats", "names", "revealed", "questions")),
                       *(_key(code, f"a:{q}") for q in questions))

    def hit(self, seat, window_s):
        key = f"lc:hits:{seat}"
        pipe = self._r.pipeline()
        pipe.incr(key)
        pipe.expire(key, int(window_s), nx=True)  # the window starts at the first write in it
        count, _ = pipe.execute()
        return int(count)
