"""A real redis-server for the tests and bench/load.py: Debian's binary as a child process on a free loopback port."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time

from deploy.local_proxy import free_port


def redis_server_path() -> str | None:
    return shutil.which("redis-server") or next((p for p in ("/usr/bin/redis-server",) if shutil.which(p)), None)


@contextlib.contextmanager
def redis_server(timeout: float = 15.0):
    """Yield the URL of a fresh redis-server (no persistence, its own temp folder); stopped afterwards."""
    import redis

    binary = redis_server_path()
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="posenc-redis-") as folder:
        process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", folder, "--protected-mode", "yes"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        url = f"redis://127.0.0.1:{port}/0"
        try:
            deadline = time.time() + timeout
            while True:
                try:
                    if redis.Redis.from_url(url).ping():
                        break
                except redis.ConnectionError:
                    if time.time() > deadline or process.poll() is not None:
                        raise
                    time.sleep(0.05)
            yield url
        finally:
            process.terminate()
            process.wait(timeout=10)
