"""Times as the formats write them: ISO text, Unix seconds or milliseconds, or no time at all."""

from datetime import UTC, datetime

from auditor.readers.stamps import moment


def test_unix_seconds_and_milliseconds_are_times_too():
    assert moment(1772442845) == moment(1772442845000) == datetime(2026, 3, 2, 9, 14, 5, tzinfo=UTC)


def test_a_time_that_is_no_time_is_none():
    assert moment("yesterday") is None and moment(True) is None
