"""A real redis-server for the tests and bench/load.py: Debian's binary as a child process on a free loopback port.

``redis_process`` yields a handle that can stall the server (SIGSTOP / SIGCONT, as a host that freezes) and
restart it on the same port and folder; with ``persist`` it keeps an append-only file, as deploy/compose.yaml
does, so a restart keeps the rooms.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import tempfile
import time

from deploy.local_proxy import free_port


def redis_server_path() -> str | None:
    return shutil.which("redis-server") or next((p for p in ("/usr/bin/redis-server",) if shutil.which(p)), None)


class RedisProcess:
    def __init__(self, binary: str, folder: str, persist: bool, timeout: float):
        self.binary, self.folder, self.persist, self.timeout = binary, folder, persist, timeout
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        durable = ["--appendonly", "yes", "--appendfsync", "everysec"] if self.persist else ["--appendonly", "no"]
        self.process = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                         *durable, "--dir", self.folder, "--protected-mode", "yes"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self) -> None:
        import redis

        deadline = time.time() + self.timeout
        while True:
            try:
                if redis.Redis.from_url(self.url, socket_timeout=1).ping():
                    return
            except (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError):
                if time.time() > deadline or self.process.poll() is not None:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()  # a stopped process cannot act on SIGTERM
            self.process.terminate()
            self.process.wait(timeout=10)

    def pause(self) -> None:
        """Freeze the server: connections stay open and nothing answers (a stalled host, a long fork)."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def restart(self) -> None:
        """SIGTERM (Redis writes its append-only file out first) and a new server on the same port and folder."""
        self.stop()
        self.start()


@contextlib.contextmanager
def redis_process(persist: bool = False, timeout: float = 15.0):
    """Yield a started RedisProcess (its own temp folder); stopped afterwards."""
    binary = redis_server_path()
    if binary is None:
        raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
    with tempfile.TemporaryDirectory(prefix="posenc-redis-") as folder:
        server = RedisProcess(binary, folder, persist, timeout)
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextlib.contextmanager
def redis_server(timeout: float = 15.0):
    """Yield the URL of a fresh redis-server (no persistence, its own temp folder); stopped afterwards."""
    with redis_process(timeout=timeout) as server:
        yield server.url
