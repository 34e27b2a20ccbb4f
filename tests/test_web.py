"""The web page's API (JSON in, Result JSON out), driven in-process through Starlette's test client.

The toy ruleset covers what holds for any ruleset; the example files (40k and
the d12 system) come through the installed plugins, as for the CLI's tests.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import tomllib
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mathhammer.exceptions import DeclinedError
from mathhammer.face.explain import explain
from mathhammer.registry import Registry
from mathhammer.scenario import load_scenario, parse_toml, read_toml, scenario_from_data
from mathhammer.simulate import evaluate, evaluate_exact

pytest.importorskip("starlette")
pytest.importorskip("httpx2")

from starlette.testclient import TestClient

from mathhammer.face.web.app import MAX_BODY, create_app

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def client(installed: Registry) -> TestClient:
    return TestClient(create_app(registry=installed, max_trials=2_000_000), base_url="http://localhost:8000")


def start(client: TestClient, url: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.post(url, json=body)
    assert response.status_code == 202, response.text
    job: dict[str, Any] = response.json()
    return job


def finish(client: TestClient, job: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, f"the job did not finish: {job}"
        time.sleep(0.02)
        job = client.get(f"/api/jobs/{job['id']}").json()
    return job


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def boltguns() -> dict[str, Any]:
    return read_toml(EXAMPLES / "boltguns.toml")


def test_page_and_assets_are_served_locally(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert 'src="/plotly.min.js"' in page.text
    # Every asset comes from this server: no address of another host anywhere in the page.
    assert re.findall(r'(?:src|href)="([^"]*)"', page.text) == [
        "/static/favicon.svg",
        "/static/app.css",
        "/plotly.min.js",
        "/static/app.js",
    ]
    assert "//" not in re.sub(r"<!--.*?-->", "", page.text).replace("://", "")
    plotly = client.get("/plotly.min.js")
    assert plotly.status_code == 200 and len(plotly.content) > 1_000_000
    assert client.get("/static/app.js").status_code == 200


def test_rulesets_describe_their_fields(client: TestClient) -> None:
    data = client.get("/api/rulesets").json()
    by_name = {r["name"]: r for r in data["rulesets"]}
    assert {"wh40k", "t9a", "skilldice"} <= set(by_name)
    target = next(f for f in by_name["wh40k"]["schema"]["fields"] if f["key"] == "target")
    assert {f["key"] for f in target["fields"]} >= {"name", "toughness", "keywords", "models"}
    keywords = {k["name"] for k in by_name["wh40k"]["keywords"]}
    assert "Sustained Hits" in keywords
    assert data["max_trials"] == 2_000_000


def test_run_gives_the_exact_result_of_the_cli(client: TestClient, installed: Registry) -> None:
    job = finish(client, start(client, "/api/run", {"scenario": boltguns()}))
    assert job["state"] == "done"
    answer = job["answer"]
    expected = evaluate_exact(load_scenario(EXAMPLES / "boltguns.toml", registry=installed), registry=installed)
    assert answer["evaluator"] == "exact"
    assert answer["models_destroyed"]["mean"] == pytest.approx(expected["models_destroyed"].mean, abs=1e-12)
    assert f"{answer['models_destroyed']['mean']:.3f}" == "1.417"
    assert answer["models_destroyed"]["pmf"] == pytest.approx(list(expected["models_destroyed"].pmf), abs=1e-12)
    assert answer["p_unit_destroyed"] == pytest.approx(expected.p_unit_destroyed, abs=1e-12)
    assert answer["rule_versions"] == dict(expected.rule_versions)
    assert answer["labels"]["models_destroyed"] == expected["models_destroyed"].label
    # The report's middle 90%: P(0 destroyed) = 0.1304 >= 5%; P(<= 2) = 0.8981 < 95% <= P(<= 3) = 0.9887.
    rows = {row["name"]: row for row in answer["per_stage"]}
    assert list(rows) == [s.name for s in expected.shown]
    assert rows["models_destroyed"]["middle_90"] == [0, 3]
    assert all(rows[s.name]["middle_90"] == [s.percentile(5), s.percentile(95)] for s in expected.shown)
    assert answer["mean_only_note"] is None
    # Every one of the 20 attacks must hit (2/3), wound (1/2) and be unsaved (1/2) to destroy the unit:
    # (1/6)^20, possible but far below what four places show, so the page shows it as the report does.
    assert answer["p_unit_destroyed"] == pytest.approx((1 / 6) ** 20, rel=1e-9)


def test_stages_known_only_by_their_mean_are_noted_as_the_report_notes_them(
    client: TestClient, installed: Registry
) -> None:
    # Three weapons into a unit of three groups: each group's and each weapon's row, as the report has them.
    path = EXAMPLES / "attached-unit-example.toml"
    answer = finish(client, start(client, "/api/run", {"scenario": read_toml(path)}))["answer"]
    expected = evaluate_exact(load_scenario(path, registry=installed), registry=installed)
    assert expected.mean_only_note is not None
    assert answer["mean_only_note"] == expected.mean_only_note
    rows = {row["name"]: row for row in answer["per_stage"]}
    assert list(rows) == [s.name for s in expected.shown]
    assert {"destroyed:Saint Celestine", "damage:Boltgun"} <= set(rows)
    for stage in expected.shown:
        assert rows[stage.name]["label"] == stage.label
        assert rows[stage.name]["mean"] == pytest.approx(stage.mean, abs=1e-12)
        known = stage.distribution_known
        assert (rows[stage.name]["sd"] is None, rows[stage.name]["middle_90"] is None) == (not known, not known)
    assert rows["damage:Boltgun"]["sd"] is None
    # Saint Celestine can die, if rarely: the report's line, like the page, never shows that as 0.0000.
    saint = answer["groups"]["Saint Celestine"]["p_destroyed"]
    assert 0 < saint < 5e-5
    assert "P(Saint Celestine destroyed) = <0.0001" in expected.group_lines


def test_monte_carlo_with_a_seed_is_reproduced(client: TestClient, installed: Registry) -> None:
    body = {"scenario": boltguns(), "evaluator": "monte_carlo", "trials": 20_000, "seed": 11}
    answer = finish(client, start(client, "/api/run", body))["answer"]
    scenario = load_scenario(EXAMPLES / "boltguns.toml", registry=installed)
    expected = evaluate(scenario, evaluator="monte_carlo", trials=20_000, seed=11, registry=installed)
    assert answer["seed"] == 11 and answer["trials"] == 20_000
    assert answer["models_destroyed"]["pmf"] == list(expected["models_destroyed"].pmf)


def test_bad_field_gets_the_cli_message(client: TestClient, installed: Registry) -> None:
    data = boltguns()
    data["attacker"]["weapons"][0]["skill"] = "9+"
    response = client.post("/api/run", json={"scenario": data})
    assert response.status_code == 400
    error = response.json()["error"]
    with pytest.raises(ValueError) as cli:
        from mathhammer.scenario import scenario_from_data

        scenario_from_data(data, registry=installed)
    assert error["field"] == "attacker.weapons[0].skill"
    assert error["message"] == str(cli.value)
    assert "Traceback" not in response.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"evaluator": "fast"}, "evaluator"),
        ({"trials": 0}, "trials"),
        ({"trials": 2_000_001}, "trials"),
        ({"trials": "many"}, "trials"),
        ({"seed": -1}, "seed"),
        ({"seed": 2**64}, "seed"),
    ],
)
def test_run_options_are_bounded(client: TestClient, body: dict[str, Any], field: str) -> None:
    response = client.post("/api/run", json={"scenario": boltguns(), **body})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == field


@pytest.mark.parametrize(
    ("content", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "JSON object"),
        (b"[" * 100_000 + b"]" * 100_000, 400, "JSON"),
        (json.dumps({"scenario": {"a": _nested(40)}}).encode(), 400, "deep"),
        (b'{"scenario": "' + b"x" * (MAX_BODY + 10) + b'"}', 413, "larger"),
        (json.dumps({"scenario": 5}).encode(), 400, "table"),
        (json.dumps({"scenario": {"ruleset": "chess"}}).encode(), 400, "chess"),
    ],
    ids=["malformed", "array", "deep-json", "deep-scenario", "oversized", "not-a-table", "unknown-ruleset"],
)
def test_malformed_and_oversized_requests(client: TestClient, content: bytes, status: int, words: str) -> None:
    response = client.post("/api/run", content=content, headers=JSON)
    assert response.status_code == status, response.text
    assert words in response.json()["error"]["message"]
    assert "Traceback" not in response.text


def test_oversized_body_without_a_length_is_refused_while_read(client: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(20):
            yield b" " * (MAX_BODY // 10)

    response = client.post("/api/run", content=chunks(), headers=JSON)
    assert response.status_code == 413


def test_other_hosts_are_refused(client: TestClient, installed: Registry) -> None:
    # DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends Host: evil.example.
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400
    assert client.get("/", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    named = TestClient(create_app(registry=installed, hosts=("192.0.2.7",)), base_url="http://192.0.2.7:8000")
    assert named.get("/").status_code == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://localhost:9999"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Content-Type": "text/plain"},
        {"Content-Type": "application/x-www-form-urlencoded"},
    ],
)
def test_cross_origin_posts_are_refused(client: TestClient, headers: dict[str, str]) -> None:
    response = client.post("/api/run", content=json.dumps({"scenario": boltguns()}), headers={**JSON, **headers})
    assert response.status_code in (403, 415)


def test_same_origin_post_is_accepted(client: TestClient) -> None:
    headers = {**JSON, "Origin": "http://localhost:8000", "Sec-Fetch-Site": "same-origin"}
    response = client.post("/api/run", content=json.dumps({"scenario": boltguns()}), headers=headers)
    assert response.status_code == 202


def test_cancel_stops_a_running_job(client: TestClient) -> None:
    body = {"scenario": read_toml(EXAMPLES / "skilldice-fight.toml"), "evaluator": "monte_carlo", "trials": 2_000_000}
    job = start(client, "/api/run", body)
    deadline = time.monotonic() + 30
    while job["state"] != "running" or not job["total"]:
        assert time.monotonic() < deadline
        time.sleep(0.02)
        job = client.get(f"/api/jobs/{job['id']}").json()
    client.post(f"/api/jobs/{job['id']}/cancel", json={})
    job = finish(client, job, timeout=10)
    assert job["state"] == "cancelled"
    assert job["answer"] is None


def test_one_job_per_worker_and_the_rest_queue(installed: Registry) -> None:
    client = TestClient(create_app(registry=installed, workers=1), base_url="http://localhost")
    body = {"scenario": read_toml(EXAMPLES / "skilldice-fight.toml"), "evaluator": "monte_carlo", "trials": 5_000_000}
    first = start(client, "/api/run", body)
    second = start(client, "/api/run", {"scenario": boltguns()})
    time.sleep(0.3)
    assert client.get(f"/api/jobs/{second['id']}").json()["state"] == "queued"
    assert client.post(f"/api/jobs/{second['id']}/cancel", json={}).json()["state"] == "cancelled"
    client.post(f"/api/jobs/{first['id']}/cancel", json={})
    assert finish(client, first, timeout=10)["state"] == "cancelled"


def test_a_long_run_does_not_hold_up_a_short_one(installed: Registry) -> None:
    client = TestClient(create_app(registry=installed, workers=2), base_url="http://localhost")
    body = {"scenario": read_toml(EXAMPLES / "skilldice-fight.toml"), "evaluator": "monte_carlo", "trials": 5_000_000}
    long = start(client, "/api/run", body)
    short = finish(client, start(client, "/api/run", {"scenario": boltguns()}), timeout=30)
    assert short["state"] == "done"
    assert client.get(f"/api/jobs/{long['id']}").json()["state"] == "running"
    client.post(f"/api/jobs/{long['id']}/cancel", json={})
    assert finish(client, long, timeout=10)["state"] == "cancelled"


def until(client: TestClient, job: dict[str, Any], ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while not ready(job):
        assert job["state"] in ("queued", "running") and time.monotonic() < deadline, job
        time.sleep(0.02)
        job = client.get(f"/api/jobs/{job['id']}").json()
    return job


def cancel_within_a_second(client: TestClient, job: dict[str, Any]) -> dict[str, Any]:
    """Cancel ``job`` and wait for its worker to stop; the job as it ended, checked to have stopped in time."""
    asked = time.monotonic()
    assert client.post(f"/api/jobs/{job['id']}/cancel", json={}).status_code == 200
    job = finish(client, job, timeout=30)
    took = time.monotonic() - asked
    assert job["state"] == "cancelled", job
    assert took < 1.0, f"the run stopped {took:.2f} s after it was cancelled"
    return job


def test_cancelling_an_exact_run_stops_it_within_a_second_and_frees_its_place(
    installed: Registry, slow_exact: Callable[[str], str]
) -> None:
    with pytest.raises(DeclinedError, match="work"):
        # The evaluation runs to the exact evaluator's work limit: without a cancel, it ends declined.
        evaluate_exact(scenario_from_data(tomllib.loads(slow_exact("Mob")), registry=installed), registry=installed)
    client = TestClient(create_app(registry=installed, workers=1), base_url="http://localhost")
    job = start(client, "/api/run", {"scenario": tomllib.loads(slow_exact("Mob")), "evaluator": "exact"})
    job = until(client, job, lambda j: j["state"] == "running" and j["phase"] == "exact")
    time.sleep(0.2)
    # "cancelled", not "failed": a run the cancel did not reach would end declined (it is exact only).
    job = cancel_within_a_second(client, job)
    assert job["answer"] is None and (job["done"], job["total"]) == (0, 0)
    # Its place is free: with one worker, a short run now starts and finishes.
    short = finish(client, start(client, "/api/run", {"scenario": boltguns()}), timeout=30)
    assert short["state"] == "done" and short["phase"] == "exact"


def test_cancelling_a_comparison_in_its_exact_phase_stops_it_within_a_second(
    installed: Registry, slow_exact: Callable[[str], str]
) -> None:
    client = TestClient(create_app(registry=installed, workers=1), base_url="http://localhost")
    # Four pairings, each seconds of exact work before it is declined and simulated.
    files = [{"name": f"{name}.toml", "text": slow_exact(name)} for name in ("first", "second")]
    job = start(client, "/api/compare", {"files": files, "metrics": ["models_destroyed"], "trials": 1000})
    job = until(client, job, lambda j: j["state"] == "running" and j["phase"] == "exact")
    time.sleep(0.2)
    cancel_within_a_second(client, job)
    short = finish(client, start(client, "/api/run", {"scenario": boltguns()}), timeout=30)
    assert short["state"] == "done"


def test_unknown_job(client: TestClient) -> None:
    assert client.get("/api/jobs/nope").status_code == 404
    assert client.post("/api/jobs/nope/cancel", json={}).status_code == 404


def test_toml_round_trip_is_what_the_cli_reads(client: TestClient) -> None:
    text = (EXAMPLES / "boltguns.toml").read_text()
    data = client.post("/api/toml/read", json={"text": text}).json()["data"]
    assert data == parse_toml(text)
    written = client.post("/api/toml/write", json={"scenario": data}).json()["text"]
    assert parse_toml(written) == data


def test_toml_read_errors(client: TestClient) -> None:
    response = client.post("/api/toml/read", json={"text": "ruleset = ", "name": "mine.toml"})
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith("mine.toml: is not valid TOML")
    data = boltguns()
    data["target"]["toughnes"] = 4
    refused = client.post("/api/toml/write", json={"scenario": data})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "target.toughnes"


def test_explain_tells_the_seeded_attack(client: TestClient, installed: Registry) -> None:
    told = client.post("/api/explain", json={"scenario": boltguns(), "seed": 3}).json()
    expected = explain(load_scenario(EXAMPLES / "boltguns.toml", registry=installed), seed=3, registry=installed)
    assert told["seed"] == 3
    assert told["dice"] == list(expected.dice)
    assert told["text"] == expected.to_text()


def test_compare_a_library(client: TestClient) -> None:
    body = {"library": (EXAMPLES / "profiles.toml").read_text(), "trials": 2_000, "seed": 1, "metrics": ["damage"]}
    job = finish(client, start(client, "/api/compare", body), timeout=120)
    assert job["state"] == "done", job
    answer = job["answer"]
    assert "bolt-rifles" in answer["attackers"]
    matrix = answer["matrices"]["damage"]
    assert len(matrix) == len(answer["attackers"]) and len(matrix[0]) == len(answer["targets"])


def test_compare_is_bounded_by_the_trial_cap(client: TestClient) -> None:
    body = {"library": (EXAMPLES / "profiles.toml").read_text(), "trials": 1_000_000}
    response = client.post("/api/compare", json=body)
    assert response.status_code == 400 and response.json()["error"]["field"] == "trials"


def test_a_bug_is_reported_without_a_traceback(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    import mathhammer.face.web.app as app_module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(app_module, "evaluate_exact", broken)
    job = finish(client, start(client, "/api/run", {"scenario": boltguns()}))
    assert job["state"] == "failed"
    assert job["error"]["message"] == "internal error: RuntimeError; this is a bug in mathhammer or a plugin"


def test_serve_elsewhere_warns_and_answers_that_host(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mathhammer.face.cli", "serve", "--host", "127.0.0.2", "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None and server.stderr is not None
            warning = server.stderr.readline()
            assert "warning: listening on 127.0.0.2, not only this computer" in warning
            url = re.search(r"http://127\.0\.0\.2:\d+/", server.stdout.readline())
            assert url is not None
            with urllib.request.urlopen(url.group(0) + "api/rulesets", timeout=30) as response:
                assert response.status == 200
        finally:
            server.terminate()


@pytest.mark.parametrize("port", ["-1", "65536", "http"])
def test_serve_refuses_a_bad_port(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    from mathhammer.face.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--port", port])
    assert exit_.value.code == 2
    assert f"{port!r}" in capsys.readouterr().err


def test_compare_scenario_files_as_the_cli_does(client: TestClient, installed: Registry) -> None:
    files = [
        {"name": "boltguns.toml", "text": (EXAMPLES / "boltguns.toml").read_text()},
        {"name": "charge.toml", "data": read_toml(EXAMPLES / "melee-charge.toml")},
    ]
    job = finish(client, start(client, "/api/compare", {"files": files, "metrics": ["models_destroyed"]}), timeout=120)
    assert job["state"] == "done", job
    answer = job["answer"]
    assert answer["attackers"] == ["boltguns", "charge"]
    from mathhammer.compare import compare, read_profiles

    profiles = read_profiles([EXAMPLES / "boltguns.toml", EXAMPLES / "melee-charge.toml"])
    expected = compare(
        list(profiles.attackers.values()), list(profiles.targets.values()), evaluator="exact", registry=installed
    )
    assert answer["targets"] == expected.targets
    for row, expected_row in zip(
        answer["matrices"]["models_destroyed"], expected.matrix("models_destroyed"), strict=True
    ):
        assert row == pytest.approx(list(expected_row), abs=1e-12)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"library": 5}, "library"),
        ({"files": "boltguns.toml"}, "files"),
        ({"files": [{"name": "", "text": ""}]}, "files[0].name"),
        ({"files": [{"name": "a.toml"}]}, "files[0]"),
        ({"library": " "}, "library"),
        ({"library": "ruleset = 'wh40k'\\n[attackers.a]\\n", "metrics": ["speed"]}, None),
    ],
)
def test_compare_refuses_what_it_cannot_compare(client: TestClient, body: dict[str, Any], field: str | None) -> None:
    response = client.post("/api/compare", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["field"] == field


def test_ctrl_c_stops_the_server_and_its_runs() -> None:
    command = [sys.executable, "-m", "mathhammer.face.cli", "serve", "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as server:
        try:
            assert server.stdout is not None and server.stderr is not None
            url = re.search(r"http://localhost:\d+/", server.stdout.readline())
            assert url is not None
            scenario = read_toml(EXAMPLES / "skilldice-fight.toml")
            body = json.dumps({"scenario": scenario, "evaluator": "monte_carlo", "trials": 10_000_000}).encode()
            request = urllib.request.Request(url.group(0) + "api/run", body, JSON)
            with urllib.request.urlopen(request, timeout=30) as response:
                assert json.load(response)["state"] in ("queued", "running")
            server.send_signal(signal.SIGINT)
            assert server.wait(timeout=30) == 0
            assert server.stdout.read().strip() == "mathhammer: the page is stopped"
            assert "Traceback" not in server.stderr.read()
        finally:
            if server.poll() is None:
                server.kill()


def test_a_t9a_close_combat_runs_from_its_toml_and_reports_the_round_and_the_break_test(
    client: TestClient, installed: Registry
) -> None:
    """A T9A ``[combat]`` scenario, imported as the page imports a file (its TOML read to data) and
    run: the answer carries P(each side wins the round) and P(the loser breaks), as the CLI and the
    API report them, exactly and by Monte Carlo, with each side's losses headed in HP."""
    text = (EXAMPLES / "t9a-combat.toml").read_text(encoding="utf-8")
    data = client.post("/api/toml/read", json={"text": text}).json()["data"]
    assert "combat" in data
    # The form sends a list only when it is required or filled in: [[attack]], which a combat refuses,
    # is optional in the description, so a combat entered in the form sends none.
    t9a = next(r for r in client.get("/api/rulesets").json()["rulesets"] if r["name"] == "t9a")
    attack = next(f for f in t9a["schema"]["fields"] if f["key"] == "attack")
    assert (attack["kind"], attack["required"]) == ("tables", False)
    expected = evaluate_exact(load_scenario(EXAMPLES / "t9a-combat.toml", registry=installed), registry=installed)
    lines = [
        "P(Greatswords wins the last round fought)",
        "P(Spearmen wins the last round fought)",
        "P(the last round fought is a draw)",
        "P(the loser breaks)",
        "P(Spearmen breaks)",
        "P(Greatswords breaks)",
    ]
    exact = finish(client, start(client, "/api/run", {"scenario": data, "evaluator": "exact"}))
    assert exact["state"] == "done", exact
    answer = exact["answer"]
    assert answer["evaluator"] == "exact"
    for line in lines:
        assert answer["chances"][line]["p"] == pytest.approx(expected.chance(line), abs=1e-12)
    assert answer["labels"]["damage"] == "Spearmen: HP lost (wounds Greatswords caused)"
    assert answer["labels"]["attacker_damage"] == "Greatswords: HP lost (wounds Spearmen caused)"
    assert "rounds" in answer["distributions"]
    body = {"scenario": data, "evaluator": "monte_carlo", "trials": 20_000, "seed": 3}
    simulated = finish(client, start(client, "/api/run", body))["answer"]
    for line in lines:
        p = expected.chance(line)
        # Within five standard errors of the exact chance, a proportion of 20,000 trials.
        assert abs(simulated["chances"][line]["p"] - p) <= 5 * (p * (1 - p) / 20_000) ** 0.5
