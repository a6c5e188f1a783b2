"""The recovery survey in parallel: the serial records whatever runs them, and ``polyrelu survey --recovery --jobs``.

Worker processes are real (loky); the Dask run is in tests/test_parallel.py,
which starts its LocalCluster once for every function.
"""

import json

from polyrelu import (
    ReLUNetwork,
    identifiability_report,
    network_oracle,
    recover_network,
)
from polyrelu.cli import main
from polyrelu.cli.survey import (
    recovery_outcome,
    recovery_survey,
    recovery_survey_table,
    time_budget_spent,
)

# six networks with three verdicts and two recovery outcomes, in about a second
ARCHITECTURES = [(2, 2, 1), (2, 3, 1), (2, 2, 2, 1)]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def without_time_column(table):
    """The markdown table without its last column, the measured recovery times."""
    return [line.rsplit("|", 2)[0] for line in table.splitlines() if line.startswith("|")]


def test_the_recovery_survey_with_2_jobs_is_the_serial_survey():
    serial = recovery_survey(ARCHITECTURES, 2, seed=0, n_jobs=1, progress=False)
    # no time budget was hit, so every record must come out the same (apart from its measured time)
    assert not any(map(time_budget_spent, serial))
    # a mixture, so that records swapped between networks would show
    assert len({r["verdict"] for r in serial}) == 3 and len({r["recovery"] for r in serial}) == 2
    assert [(tuple(r["architecture"]), r["seed"]) for r in serial] == [(a, s) for a in ARCHITECTURES for s in (0, 1)]
    parallel = recovery_survey(ARCHITECTURES, 2, seed=0, n_jobs=2, progress=False)
    assert without_seconds(parallel) == without_seconds(serial)
    assert without_time_column(recovery_survey_table(parallel)) == without_time_column(recovery_survey_table(serial))


def test_a_record_is_what_its_network_gives_alone():
    # the task of network k uses its own seed: the record of (2, 2, 2, 1) seed 1 is computed here directly
    record = recovery_survey([(2, 2, 2, 1)], 1, seed=1, n_jobs=2, progress=False)[0]
    net = ReLUNetwork.random((2, 2, 2, 1), seed=1, kind="gaussian")
    result = recover_network(network_oracle(net), 2, seed=1, max_seconds=60)
    assert (record["verdict"], record["recovery"], record["queries"], record["reason"]) == (
        identifiability_report(net).verdict, recovery_outcome(net, result), result.queries, result.reason)


def test_the_query_budget_stops_recovery_the_same_way_whatever_runs_it():
    serial = recovery_survey([(2, 2, 2, 1)], 2, max_queries=300, n_jobs=1, progress=False)
    assert all(r["recovery"] == "undecided" and r["reason"].startswith("the query budget (300)") for r in serial)
    assert not any(map(time_budget_spent, serial))
    assert without_seconds(recovery_survey([(2, 2, 2, 1)], 2, max_queries=300, n_jobs=2, progress=False)) \
        == without_seconds(serial)


def test_a_recovery_stopped_by_the_time_budget_is_recognised():
    # the wording of recover_network's reason is what time_budget_spent reads
    record = recovery_survey([(2, 2, 1)], 1, max_seconds=1e-9, n_jobs=1, progress=False)[0]
    assert record["recovery"] == "undecided" and time_budget_spent(record), record["reason"]


# -- the command -------------------------------------------------------------------------------------------
SURVEY = ["survey", "--recovery", "--input", "2", "--depths", "1,2", "--widths", "2", "--samples", "2"]


def test_survey_recovery_with_jobs_gives_the_serial_table_and_records(tmp_path, capsys):
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"survey-{jobs}.json"
        code, out, err = run(capsys, *SURVEY, "--jobs", jobs, "-o", str(path))
        assert code == 0, err
        document = json.loads(path.read_text())
        outputs.append((without_time_column(out), without_seconds(document["networks"]), document["parameters"]))
    assert outputs[0] == outputs[1]
    table, records, parameters = outputs[0]
    assert len(records) == 4 and len(table) == 4  # header, rule, two architectures
    assert (parameters["max_seconds"], parameters["max_queries"]) == (60, 1_000_000) and "jobs" not in parameters


def test_survey_reports_recoveries_stopped_by_the_time_budget(capsys):
    code, out, err = run(capsys, *SURVEY, "--depths", "1", "--max-seconds", "1e-9", "--jobs", "2")
    assert code == 0, err
    assert "2 of 2 recoveries stopped at the time budget (1e-09 s)" in out and "--max-queries" in out


def test_survey_max_queries_is_each_recoverys_query_budget(tmp_path, capsys):
    path = tmp_path / "survey.json"
    assert run(capsys, *SURVEY, "--depths", "2", "--max-queries", "300", "-o", str(path))[0] == 0
    document = json.loads(path.read_text())
    assert document["parameters"]["max_queries"] == 300
    assert all(r["reason"].startswith("the query budget (300)") for r in document["networks"])


def test_bad_parallel_options_exit_2_saying_what_to_write(capsys):
    for argv, message in (
        ([*SURVEY, "--jobs", "0"], "--jobs 0: must be a positive number of worker processes (1 = serial) or -1"),
        ([*SURVEY, "--jobs", "-2"], "--jobs -2: must be a positive number"),
        ([*SURVEY, "--jobs", "two"], "argument --jobs: invalid int value: 'two'"),
        ([*SURVEY, "--scheduler", " "], "--scheduler: give the address of a Dask scheduler (e.g. tcp://host:8786)"),
        (["survey", "--max-queries", "300"], "--max-queries is the query budget of each recovery: add --recovery"),
        ([*SURVEY, "--max-queries", "0"], "--max-queries 0: must be a positive integer"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.startswith("polyrelu: error: ") and message in err and err.count("\n") == 1, err
        assert not out  # refused before any network is drawn


def test_survey_help_lists_the_parallel_options_and_the_budgets(capsys):
    code, out, _ = run(capsys, "survey", "--help")
    text = " ".join(out.split())
    assert code == 0
    for option in ("--jobs N", "--scheduler ADDRESS", "--max-queries N", "--max-seconds S"):
        assert option in text
    assert "the same outcome on any machine" in text
