"""A live class: the room's predict-then-reveal answers gathered on shared state (no Streamlit here).

``rooms`` holds who may do what (the teacher key, seats, limits) and ``open_store``, which picks the backend:
SQLite in WAL mode for one process, Redis when POSENC_REDIS_URL names a server that several replicas share.
``rules`` holds what needs no store: room codes, seat tokens, nicknames, the limits.
"""

from .rooms import ClassError, Classroom, ClassUnreachable, open_store

__all__ = ["Classroom", "ClassError", "ClassUnreachable", "open_store"]
