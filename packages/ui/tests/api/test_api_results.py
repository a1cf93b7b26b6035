"""/api/v1/projects/<p>/results and /args."""

from __future__ import annotations

from flask.testing import FlaskClient
from ui_testing import crawl


def test_results_list_has_args_last_values_status(
    client: FlaskClient, project, make_run
) -> None:
    make_run("a", n=30, args={"lr": 0.1, "batchsize": 64})
    make_run("b", n=10, args={"lr": 0.01})
    crawl(client, project["id"])
    results = client.get(f"/api/v1/projects/{project['id']}/results").json["results"]
    assert [r["name"] for r in results] == ["a", "b"]
    a = results[0]
    assert a["args"] == {"lr": 0.1, "batchsize": 64}
    assert a["lastValues"]["iteration"] == 30 and a["nEntries"] == 30
    assert a["status"] == "active"  # log just written, no status file
    rid = a["id"]
    one = client.get(f"/api/v1/projects/{project['id']}/results/{rid}").json
    assert one["result"]["name"] == "a"
    args = client.get(f"/api/v1/projects/{project['id']}/results/{rid}/args").json
    assert args == {"args": {"lr": 0.1, "batchsize": 64}}


def test_result_404_names_project_and_result(client: FlaskClient, project) -> None:
    r = client.get(f"/api/v1/projects/{project['id']}/results/12")
    assert r.status_code == 404
    assert (
        r.json["error"]["message"] == f"result 12 not found in project {project['id']}"
    )
    r = client.get("/api/v1/projects/3/results/12/args")
    assert r.json["error"]["message"] == "project 3 not found"


def test_result_of_other_project_is_404(
    client: FlaskClient, project, make_run, tmp_path
):
    make_run("a")
    crawl(client, project["id"])
    other = tmp_path / "other"
    other.mkdir()
    pid2 = client.post("/api/v1/projects", json={"path": str(other)}).json["project"][
        "id"
    ]
    rid = client.get(f"/api/v1/projects/{project['id']}/results").json["results"][0][
        "id"
    ]
    assert client.get(f"/api/v1/projects/{pid2}/results/{rid}").status_code == 404


def test_rename_and_delete(client: FlaskClient, project, make_run) -> None:
    make_run("a")
    crawl(client, project["id"])
    base = f"/api/v1/projects/{project['id']}/results"
    rid = client.get(base).json["results"][0]["id"]
    assert (
        client.patch(f"{base}/{rid}", json={"name": "nice"}).json["result"]["name"]
        == "nice"
    )
    assert client.patch(f"{base}/{rid}", json={"status": "finished"}).status_code == 409
    assert client.delete(f"{base}/{rid}").status_code == 200
    assert client.get(base).json["results"] == []
