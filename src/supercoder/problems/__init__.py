"""Problems: problem folders (loading, layouts of users' tests, init from C + inputs), output
comparison, coverage and fuzzing."""

from supercoder.problems.loading import is_problem_dir, load_problem, write_problem

__all__ = ["is_problem_dir", "load_problem", "write_problem"]
