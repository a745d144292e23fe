"""What the tests and the benchmarks share to drive the app from outside: start it on a free loopback port,
find Chromium, wait for a page to settle. Never imported by the app itself."""
