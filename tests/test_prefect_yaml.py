"""prefect.yaml holds, as literal values, the deployments `mlperf-wh serve` builds in code
(flows/watch.py deployments()): the two must not drift apart. And the operations guide's work-pool
commands name the pool prefect.yaml deploys to."""
from __future__ import annotations

import yaml

from flows.watch import deployments
from tests.conftest import ROOT
from warehouse.cli.runs import DEFAULT_CRON

PREFECT_YAML = yaml.safe_load((ROOT / "prefect.yaml").read_text(encoding="utf-8"))


def declared() -> dict[str, dict]:
    return {d["name"]: d for d in PREFECT_YAML["deployments"]}


def test_prefect_yaml_declares_the_deployments_serve_serves():
    served = deployments(DEFAULT_CRON)
    assert sorted(declared()) == sorted(d.name for d in served)
    for d in served:
        entry = declared()[d.name]
        assert entry["entrypoint"] == d.entrypoint, d.name
        assert entry["parameters"] == d.parameters, d.name
        assert entry["description"] == d.description, d.name
        assert [s["cron"] for s in entry["schedules"]] == [s.schedule.cron for s in d.schedules], d.name
        assert all(set(s) == {"cron"} for s in entry["schedules"]), "serve's schedules set only a cron"


def test_each_entrypoint_loads_the_flow_its_deployment_runs():
    from prefect.flows import Flow, load_flow_from_entrypoint
    for d in deployments(DEFAULT_CRON):
        loaded = load_flow_from_entrypoint(d.entrypoint)
        assert isinstance(loaded, Flow) and loaded.name == d.flow_name, d.name


def test_every_deployment_goes_to_one_process_pool_and_runs_from_the_deployed_checkout():
    pools = {d["work_pool"]["name"] for d in declared().values()}
    assert len(pools) == 1
    (build,) = PREFECT_YAML["build"]
    assert build == {"prefect.deployments.steps.run_shell_script": {
        "id": "checkout", "script": "pwd", "stream_output": False}}
    assert PREFECT_YAML["pull"] == [{"prefect.deployments.steps.set_working_directory": {
        "directory": "{{ checkout.stdout }}"}}]


def test_the_operations_guide_names_the_pool_prefect_yaml_deploys_to():
    (pool,) = {d["work_pool"]["name"] for d in declared().values()}
    guide = (ROOT / "docs" / "operations-guide.md").read_text(encoding="utf-8")
    assert f"prefect work-pool create {pool} --type process" in guide
    assert f"prefect worker start --pool {pool}" in guide
