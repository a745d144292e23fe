"""st.cache_data reads a cached function's signature once per positional argument on every call.

Streamlit 1.67's cache key (``cache_utils._get_positional_arg_name``) asks ``type_util.get_func_parameters`` for
the argument's name, and that runs ``inspect.signature`` each time: a third of the cost of a cache hit (185 us
against 120 us for four arguments, measured), and a lesson run makes a dozen hits. A function's parameters do
not change while the process runs, so they are kept per function. Streamlit's own telemetry keeps them the
same way (``metrics_util._get_arg_keywords_cached``).
"""

from __future__ import annotations

import functools

from streamlit import type_util


def install() -> None:
    """Memoise ``type_util.get_func_parameters`` (once; a second call changes nothing)."""
    if not hasattr(type_util.get_func_parameters, "cache_info"):
        type_util.get_func_parameters = functools.lru_cache(maxsize=4096)(type_util.get_func_parameters)
