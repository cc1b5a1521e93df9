"""The Dash dashboard: watch and steer market runs live, one set of models per browser tab.

- :mod:`dashboards.app`: the page and the app (``create_app``, ``serve``);
- :mod:`dashboards.session`: per-tab state, pure Python (set-ups, runs, recorded series, the
  registry of sessions);
- :mod:`dashboards.views`: figures and tables built from a session's data;
- :mod:`dashboards.callbacks`: the callbacks, and how updates stay incremental.
"""
