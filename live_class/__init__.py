"""A live class: the room's predict-then-reveal answers gathered on shared state (no Streamlit here).

``rooms`` holds the rules (codes, the teacher key, limits, validation) and ``open_store`` picks the backend:
SQLite in WAL mode for one process, Redis when POSENC_REDIS_URL names a server that several replicas share.
"""

from .rooms import ClassError, Classroom, open_store

__all__ = ["Classroom", "ClassError", "open_store"]
