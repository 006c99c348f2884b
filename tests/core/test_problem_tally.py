"""core.ProblemTally: the capped problem count that generate, its partitions and the CLI share."""

from __future__ import annotations


def test_problem_tally_counts_every_problem_and_keeps_the_first_of_each_code() -> None:
    import pickle

    from sitemapkit.core import Location, Problem, ProblemTally, Severity

    tally = ProblemTally(2)
    numbers = [tally(Problem(code, severity, str(i), Location("a.txt", i)))
               for i, (code, severity) in enumerate([("SM608", Severity.ERROR)] * 3 + [("SM607", Severity.WARNING)])]
    assert numbers == [1, 2, 3, 1]
    assert tally.counts == {"SM608": 3, "SM607": 1}
    assert [p.message for p in tally.kept] == ["0", "1", "3"]
    assert tally.errors == 3
    copy = pickle.loads(pickle.dumps(tally))  # partitions send theirs back from worker processes
    assert (copy.counts, copy.errors, len(copy.kept)) == (tally.counts, 3, 3)
