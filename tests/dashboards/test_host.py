"""``gridmarket dashboard`` refuses an address it cannot serve on in one line (exit 2), before
the web server starts (which would print the resolver's bare message and exit 1)."""

from __future__ import annotations

import socket

import pytest

from market.cli.main import main


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("999.1.1.1", "(--host: not an address: "),
        ("a\x00b", "(--host: not an address: "),
    ],
)
def test_a_host_that_is_no_address_is_one_line(capsys, host, reason):
    assert main(["dashboard", "--host", host, "--port", "8999"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"gridmarket: error: dashboard: cannot serve on {host}:8999 {reason}")


def test_a_port_taken_is_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["dashboard", "--host", "127.0.0.1", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot serve on 127.0.0.1:{port} (" in err
