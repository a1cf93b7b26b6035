"""kusari_ui.client against a live server."""

from __future__ import annotations

import json
import logging
import urllib.request

import numpy as np
import pytest

from kusari_ui import client


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read())


def test_client_logs_a_loop(live_server) -> None:
    run = client.init(
        live_server.url,
        "loops",
        "plain-loop",
        args={"lr": np.float32(0.5), "arch": "mlp"},
    )
    for i in range(1, 21):
        client.log({"iteration": i, "loss": np.float64(1.0 / i), "bad": float("nan")})
    client.finish()
    base = f"{live_server.url}/api/v1/projects/{run.project_id}"
    res = _get(f"{base}/results/{run.result_id}")["result"]
    assert res["args"] == {"lr": 0.5, "arch": "mlp"}
    assert res["nEntries"] == 20 and res["status"] == "finished"
    assert res["lastValues"]["loss"] == pytest.approx(0.05)
    series = _get(f"{base}/series?keys=loss")["series"]
    assert len(series[0]["points"]) == 20


def test_client_batches_and_survives_outage(live_server, caplog) -> None:
    run = client.Run(live_server.url, "loops", "batched", batch=5)
    for i in range(12):
        run.log({"iteration": i})
    run.flush()
    base = f"{live_server.url}/api/v1/projects/{run.project_id}/results/{run.result_id}"
    assert _get(base)["result"]["nEntries"] == 12
    live_server.stop()
    with caplog.at_level(logging.WARNING, logger="kusari_ui.client"):
        run.log({"iteration": 99})
        run.flush()
    assert "could not send" in caplog.text


def test_log_before_init_raises(monkeypatch) -> None:
    monkeypatch.setattr(client, "_current", None)
    with pytest.raises(RuntimeError, match="init"):
        client.log({"x": 1})


def test_server_errors_raise_client_error(live_server) -> None:
    with pytest.raises(client.ClientError, match="HTTP 400"):
        client.Run(live_server.url, "", "x")
    run = client.Run(live_server.url, "loops", "st")
    run.finish(status="bogus")  # rejected by the server: logged, not raised


def test_client_sends_the_token(app, live_server, monkeypatch) -> None:
    app.config["AUTH_TOKEN"] = "client-token"
    monkeypatch.delenv(client.TOKEN_ENV, raising=False)
    with pytest.raises(client.ClientError, match="401"):
        client.Run(live_server.url, "locked", "r1")
    run = client.Run(live_server.url, "locked", "r1", token="client-token")
    run.log({"iteration": 1, "loss": 0.5})
    monkeypatch.setenv(client.TOKEN_ENV, "client-token")
    again = client.Run(live_server.url, "locked", "r1")  # token from the env
    assert again.result_id == run.result_id
    req = urllib.request.Request(
        f"{live_server.url}/api/v1/projects/{run.project_id}/results/{run.result_id}",
        headers={"Authorization": "Bearer client-token"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert json.loads(resp.read())["result"]["nEntries"] == 1
