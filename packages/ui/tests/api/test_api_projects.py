"""/api/v1/projects."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient
from ui_testing import crawl


def test_create_list_get_rename_delete(client: FlaskClient, project_dir: Path) -> None:
    assert client.get("/api/v1/projects").json == {"projects": [], "crawling": False}
    resp = client.post("/api/v1/projects", json={"path": str(project_dir)})
    assert resp.status_code == 201
    p = resp.json["project"]
    assert p["name"] == "project" and p["path"] == str(project_dir.resolve())
    assert client.get("/api/v1/projects").json["projects"][0]["resultCount"] == 0
    assert client.get(f"/api/v1/projects/{p['id']}").json["project"]["id"] == p["id"]
    resp = client.patch(f"/api/v1/projects/{p['id']}", json={"name": "renamed"})
    assert resp.json["project"]["name"] == "renamed"
    assert client.delete(f"/api/v1/projects/{p['id']}").status_code == 200
    resp = client.get(f"/api/v1/projects/{p['id']}")
    assert resp.status_code == 404
    assert resp.json == {
        "error": {"type": "not_found", "message": f"project {p['id']} not found"}
    }


def test_create_rejects_bad_input(client: FlaskClient, project_dir: Path) -> None:
    r = client.post("/api/v1/projects", json={"path": str(project_dir / "nope")})
    assert r.status_code == 400 and "does not exist" in r.json["error"]["message"]
    r = client.post("/api/v1/projects", json={})
    assert r.status_code == 400 and r.json["error"]["type"] == "bad_request"
    r = client.post("/api/v1/projects", data="{broken", content_type="application/json")
    assert r.status_code == 400
    r = client.post("/api/v1/projects", data="path=/", content_type="text/plain")
    assert r.status_code == 415
    client.post("/api/v1/projects", json={"path": str(project_dir)})
    r = client.post("/api/v1/projects", json={"path": str(project_dir), "name": "x"})
    assert r.status_code == 409


def test_crawl_endpoint(client: FlaskClient, project, make_run) -> None:
    make_run("a", n=4)
    assert crawl(client, project["id"])["newEntries"] == 4
    assert crawl(client, project["id"])["newEntries"] == 0
    assert client.post("/api/v1/projects/99/crawl").status_code == 404


def test_unknown_route_and_method(client: FlaskClient) -> None:
    r = client.get("/api/v1/nothing/here")
    assert r.status_code == 404 and "nothing/here" in r.json["error"]["message"]
    r = client.put("/api/v1/projects")
    assert r.status_code == 405 and r.json["error"]["type"] == "method_not_allowed"
