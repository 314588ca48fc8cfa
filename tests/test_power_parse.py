"""A run's power figure as MLCommons' checker computes it (issue 62, item 1), on a hand-made trimmed run
(tests/fixtures/power): the two files parsed as the checker reads them, the mean of the positive samples
strictly inside the window, Watts or energy per query by the era rules of the round; and every
malformed file refused with the line it names (item 2). A v1.0 run (tests/fixtures/power_v1.0) logged
local times: its window and samples shifted by its power folder's timezones as the checker adds them."""
from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from warehouse.trees.parsing import UnparsableFile
from warehouse.trees.parsing_power import parse_detail, parse_timezone, spl_window, timestamp_us
from warehouse.trees.power import Bounds, figure, power_rule, sample_window

pytestmark = pytest.mark.unit

FIXTURE = Path(__file__).parent / "fixtures" / "power"
DETAIL = (FIXTURE / "mlperf_log_detail.txt").read_bytes()
SPL = (FIXTURE / "spl.txt").read_bytes()
LENIENT = Bounds(skipped_share=0.5, window_grace_s=2.0)   # the fixture skips one sample of four


def _read(detail: bytes = DETAIL, spl: bytes = SPL) -> tuple[dict, dict]:
    read = parse_detail(detail, "detail")
    return read, spl_window(spl, read["power_begin_us"], read["power_end_us"], "spl")


def test_the_detail_log_is_read_at_the_first_record_of_each_key_as_the_checker_reads_it():
    detail = parse_detail(DETAIL, "detail")
    assert (detail["power_begin"], detail["power_end"]) == ("08-03-2022 20:00:01.500", "08-03-2022 20:00:05.500")
    assert detail["power_end_us"] - detail["power_begin_us"] == 4_000_000
    assert (detail["result_query_count"], detail["effective_scenario"]) == (400, "SingleStream")


def test_the_mean_is_of_the_positive_samples_strictly_inside_the_window():
    _, spl = _read()
    # 20:00:02 to 20:00:05 are inside (01.500, 05.500): 210, 0, 230, 240; the zero is skipped
    assert (spl["samples"], spl["watts_sum"], spl["skipped"], spl["lines"]) == (3, 680.0, 1, 8)
    assert spl["first_skipped"] == "line 4: 0.000000 W"


@pytest.mark.parametrize("round_name, scenario, effective, value, unit, counted", [
    ("v2.1", "Offline", "SingleStream", 680 / 3, "Watts", None),
    ("v2.1", "Server", "Server", 680 / 3, "Watts", None),
    # from v2.0: energy per query over result_query_count (400), in Joules until v2.1
    ("v2.1", "SingleStream", "SingleStream", 680 / 3 * 4.0 / 400, "Joules", 400.0),
    # a MultiStream result inferred from a SingleStream run counts 8 samples a query
    ("v2.1", "MultiStream", "SingleStream", 680 / 3 * 4.0 * 8 / 400, "Joules", 400.0),
    ("v2.1", "MultiStream", "MultiStream", 680 / 3 * 4.0 / 400, "Joules", 400.0),
    # from v3.0, millijoules
    ("v3.1", "SingleStream", "SingleStream", 680 / 3 * 4.0 * 1000 / 400, "millijoules", 400.0),
    # before v2.0 LoadGen logged no count: SingleStream's is result_qps_with_loadgen_overhead (100) x 4 s
    ("v1.1", "SingleStream", "SingleStream", 680 / 3 * 4.0 / 400.0, "Joules", 400.0),
    # and MultiStream's generated_query_count x generated_samples_per_query (2000 x 1); no x 8 then
    ("v1.1", "MultiStream", "SingleStream", 680 / 3 * 4.0 / 2000, "Joules", 2000.0),
])
def test_the_figure_follows_the_rule_of_the_round(round_name, scenario, effective, value, unit, counted):
    detail, spl = _read(DETAIL.replace(b'"SingleStream"', f'"{effective}"'.encode()))
    found, reasons = figure(power_rule(round_name), scenario, detail, spl, LENIENT)
    assert reasons == []
    assert found["value"] == pytest.approx(value, rel=1e-12) and found["unit"] == unit
    assert found["query_count"] == counted and found["average_watts"] == pytest.approx(680 / 3)
    assert (found["samples"], found["samples_skipped"], found["duration_s"]) == (3, 1, 4.0)


def test_the_checkers_order_of_operations_is_kept_to_the_last_bit():
    detail, spl = _read()
    found, _ = figure(power_rule("v3.0"), "SingleStream", detail, spl, LENIENT)
    mean = 680.0 / 3
    assert found["value"] == mean * 4.0 * 1000 / 400   # power_check.py: avg * duration * 1000 / num_queries


def test_v1_0_local_times_without_timezones_and_rounds_before_power_are_not_computed():
    detail, spl = _read()
    assert "without both, not computed" in figure(power_rule("v1.0"), "Offline", detail, spl, LENIENT)[1][0]
    assert figure(power_rule("v1.1"), "Offline", detail, spl, LENIENT, (0, 0))[1] == [
        "timezones given for a round whose logs are in UTC"]
    assert figure(power_rule("v0.7"), "Offline", detail, spl, LENIENT)[1] == [
        "MLPerf Inference measured no power before v1.0"]


# ---------------------------------------------------------------------------------------------
# v1.0: local times, shifted by performance/power/client.json and server.json

V10 = Path(__file__).parent / "fixtures" / "power_v1.0"
V10_DETAIL = (V10 / "mlperf_log_detail.txt").read_bytes()
V10_SPL = (V10 / "spl.txt").read_bytes()


def _v10_figure(client: int, server: int, spl: bytes = V10_SPL) -> dict:
    detail = parse_detail(V10_DETAIL, "detail")
    begin, end = sample_window(detail, (client, server))
    found, reasons = figure(power_rule("v1.0"), "Offline", detail, spl_window(spl, begin, end, "spl"), LENIENT,
                            (client, server))
    assert reasons == []
    return found


def test_equal_timezones_give_the_unshifted_reading():
    found = _v10_figure(28800, 28800)
    # strictly inside 20:00:01.500 to 20:00:05.500: the samples of 02, 03, 04 and 05 s
    assert found["value"] == (210 + 220 + 230 + 240) / 4 and (found["samples"], found["duration_s"]) == (4, 4.0)
    assert "power_begin and power_end + client.json's timezone (28800 s), each sample's time + server.json's " \
           "(28800 s)" in found["rule"]


def test_different_timezones_shift_the_window_as_the_checker_adds_them():
    # the checker keeps a sample when its time + 28798 > power_begin + 28800, that is time > power_begin + 2 s:
    # 20:00:03.500 to 20:00:07.500 on the analyzer's clock, the samples of 04, 05, 06 and 07 s
    found = _v10_figure(28800, 28798)
    assert found["value"] == (230 + 240 + 250 + 900) / 4 and found["duration_s"] == 4.0
    # subtracting the timezones instead would read 19:59:59.500 to 20:00:03.500: 100, 200, 210, 220 W
    assert found["value"] != (100 + 200 + 210 + 220) / 4


def test_an_analyzer_logging_utc_lines_up_with_a_sut_logging_local_time():
    # the director's clock in UTC (server.json 0), the SUT's 7 h west of it (client.json 25200): the
    # analyzer logged 03:00 of the next day for the SUT's 20:00
    in_utc = V10_SPL.replace(b"03-17-2021 20:", b"03-18-2021 03:")
    assert _v10_figure(25200, 0, in_utc)["value"] == 225.0


def test_a_shifted_window_outside_the_log_names_the_analyzers_clock():
    detail = parse_detail(V10_DETAIL, "detail")
    begin, end = sample_window(detail, (28800, 28790))
    reasons = figure(power_rule("v1.0"), "Offline", detail, spl_window(V10_SPL, begin, end, "spl"), LENIENT,
                     (28800, 28790))[1]
    assert "on the analyzer's clock 03-17-2021 20:00:11.500 to 03-17-2021 20:00:15.500" in reasons[0]


@pytest.mark.parametrize("content, said", [
    (b'{"timezone": "28800"}', '"timezone" is "28800", not a whole number of seconds'),
    (b'{"timezone": 28800.5}', '"timezone" is 28800.5, not a whole number of seconds'),
    (b'{"timezone": true}', '"timezone" is true, not a whole number of seconds'),
    (b'{"timezone": null}', '"timezone" is null, not a whole number of seconds'),
    (b'{"timezone": 90000}', '"timezone" is 90000 s, beyond any zone on Earth (at most 14 h from UTC)'),
    (b'{"timezone": -50401}', '"timezone" is -50401 s, beyond any zone on Earth (at most 14 h from UTC)'),
    (b'{"version": "1.0"}', 'not a JSON object with a "timezone"'),
    (b"[28800]", 'not a JSON object with a "timezone"'),
    (b'{"timezone": 288', "not JSON"),
    (b"", "not JSON"),
    (b'{"timezone": 28800}\xff', "not valid UTF-8 at byte 19"),
])
def test_a_timezone_file_that_gives_no_offset_is_refused(content, said):
    with pytest.raises(UnparsableFile) as refused:
        parse_timezone(content, "client.json")
    assert refused.value.reasons == [said]


def test_a_timezone_file_is_read_at_its_offset():
    assert parse_timezone((V10 / "client.json").read_bytes(), "client.json") == {"timezone": 28800}
    assert parse_timezone(b'{"timezone": -50400}', "server.json") == {"timezone": -50400}


def test_skipped_samples_past_the_share_quarantine_the_figure():
    detail, spl = _read()
    found, reasons = figure(power_rule("v2.1"), "Offline", detail, spl, Bounds(skipped_share=0.01, window_grace_s=2))
    assert found is None and reasons[0].startswith("1 of the 4 samples inside the window are not positive Watts "
                                                   "(first line 4: 0.000000 W)")
    assert "MLPERF_POWER_SKIPPED_SHARE" in reasons[0]


def test_a_log_that_does_not_cover_the_window_quarantines_the_figure():
    detail, spl = _read(spl=b"\n".join(SPL.splitlines()[:5]))   # ends at 20:00:04, the window at 05.500
    reasons = figure(power_rule("v2.1"), "Offline", detail, spl, Bounds(0.5, window_grace_s=1.0))[1]
    assert reasons and "is longer than the analyzer's log (samples 08-03-2022 20:00:00.000 to 08-03-2022 " \
                       "20:00:04.000; 1 s of grace" in reasons[0]


def test_no_sample_inside_the_window_says_so_in_the_checkers_words():
    detail, spl = _read(spl=SPL.replace(b"08-03-2022", b"08-02-2022"))
    reasons = figure(power_rule("v2.1"), "Offline", detail, spl, LENIENT)[1]
    assert "no positive Watts sample strictly inside the window" in reasons[0]
    assert "'no power samples falling in power range'" in reasons[0]


@pytest.mark.parametrize("change, said", [
    ((b"Watts,230.000000", b"Watts,abc"), "line 5: Watts 'abc' is not a number"),
    ((b"Watts,230.000000", b"Watts,nan"), "line 5: Watts 'nan' is not a finite number"),
    ((b"20:00:04.000", b"20:00:00.500"), "line 5: time 08-03-2022 20:00:00.500 is before the line above's: "
                                         "the samples are out of order"),
    ((b"Time,08-03-2022 20:00:04.000,Watts", b"Time,08-33-2022 20:00:04.000,Watts"),
     "line 5: time '08-33-2022 20:00:04.000' is not MM-DD-YYYY hh:mm:ss.fff"),
    ((b",Watts,230.000000", b",Volts,230.000000"), "line 5 is not a sample (Time,<time>,Watts,<W>,...)"),
])
def test_a_malformed_sample_line_refuses_the_log_naming_the_line(change, said):
    with pytest.raises(UnparsableFile) as refused:
        _read(spl=SPL.replace(*change))
    assert refused.value.reasons[0].startswith(said)


def test_lines_that_are_not_samples_are_skipped_as_the_checker_skips_them():
    _, spl = _read(spl=b"PTDaemon started\n" + SPL + b"\n\n")
    assert (spl["samples"], spl["lines"]) == (3, 8)


@pytest.mark.parametrize("detail, said", [
    (DETAIL[:len(DETAIL) * 2 // 3 + 40], "is not a whole :::MLLOG JSON record (the log is cut short)"),
    (b"hello\n" + DETAIL, "not a LoadGen detail log: line 1 is not a :::MLLOG record"),
    (b"\n".join(line for line in DETAIL.splitlines() if b"power_end" not in line),
     "no power_end record: LoadGen logged no power window"),
    (DETAIL.replace(b'"value": 400', b'"value": "400"'), "result_query_count is \"400\", not int"),
    (DETAIL.replace(b"08-03-2022 20:00:05.500", b"08-03-2022 20:00:01.000"), "power_end 08-03-2022 20:00:01.000 "
                                                                              "is not after power_begin"),
    (DETAIL.replace(b"20:00:01.500", b"25:00:01.500"), "power_begin '08-03-2022 25:00:01.500' is not a time"),
])
def test_a_detail_log_that_is_not_whole_is_refused(detail, said):
    with pytest.raises(UnparsableFile) as refused:
        parse_detail(detail, "detail")
    assert said in refused.value.reasons[0]


@given(st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1)), st.integers(1, 6))
def test_the_fast_time_reader_reads_every_time_as_strptime_does(at, digits):
    text = at.strftime("%m-%d-%Y %H:%M:%S.") + f"{at.microsecond:06d}"[:digits]
    parsed = datetime.strptime(text, "%m-%d-%Y %H:%M:%S.%f")
    assert timestamp_us(text) == round((parsed - datetime(1970, 1, 1)).total_seconds() * 1e6)


@pytest.mark.parametrize("text", ["8-3-2022 20:00:01.5", "08-03-2022 20:00:01.5"])
def test_spellings_strptime_reads_are_read(text):
    assert timestamp_us(text) == timestamp_us("08-03-2022 20:00:01.500000")


@pytest.mark.parametrize("text", ["02-30-2022 20:00:01.500", "08-03-2022 20:60:01.500", "08-03-2022 20:00:01",
                                  "2022-08-03 20:00:01.500"])
def test_times_strptime_refuses_are_refused(text):
    with pytest.raises(ValueError):
        timestamp_us(text)
