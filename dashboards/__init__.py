"""The Dash dashboard: one server, one page per view, one set of runs per browser tab and page.

- :mod:`dashboards.app`: the app (``create_app``, ``serve``) and its pages (Dash pages);
  :mod:`dashboards.cli`: ``gridmarket dashboard`` (and ``python -m dashboards``);
- the pages: :mod:`dashboards.live_page` (with :mod:`dashboards.callbacks`,
  :mod:`dashboards.live_update`, :mod:`dashboards.setup_panel`), :mod:`dashboards.market_view`,
  :mod:`dashboards.vqops`, :mod:`dashboards.libra`, :mod:`dashboards.varq`, the last four in the
  frame of :mod:`dashboards.view_page`;
- per-tab state, pure Python: :mod:`dashboards.session` (bounded runs and recorded series),
  :mod:`dashboards.setup`, :mod:`dashboards.tab_sessions`, :mod:`dashboards.run_limits`;
- what a browser may open: :mod:`dashboards.served_scenarios`, :mod:`dashboards.confined_paths`.
"""
