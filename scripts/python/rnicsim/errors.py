# SPDX-License-Identifier: Apache-2.0
"""The package's exceptions. Every expected failure of a public function is an Error with a
message that names the file or value at fault; callers catch `rnicsim.Error` and print it.

    Error
    +-- BuildError (alias RnicsimNotFound)   no rnicsim binary: missing, or the build failed
    +-- RunError                             rnicsim did not succeed: exit 1 (an expectation
        |                                    failed), 3 (simulator error), a signal, or it
        |                                    could not be started (exit_code 127)
        +-- ScenarioError                    exit 2: the scenario or an argument was refused,
            |                                or the package could not make it a file
            +-- ValidationError              Scenario.validate() was refused
"""


class Error(Exception):
    """Base of every error the package raises on purpose."""


class BuildError(Error):
    """No usable rnicsim binary: a named one is missing, or the build failed."""


RnicsimNotFound = BuildError  # the older name, kept for the tools that catch it


class RunError(Error):
    """rnicsim exited non-zero (or could not run): .exit_code (None when rnicsim never ran),
    .stderr and .results (the results JSON as a dict, or None)."""

    def __init__(self, message, exit_code=None, stderr="", results=None):
        super().__init__(message)
        self.exit_code, self.stderr, self.results = exit_code, stderr, results


class ScenarioError(RunError):
    """rnicsim refused the scenario or a --set/--seed value (exit 2), or the scenario cannot
    be written as JSON."""


class ValidationError(ScenarioError):
    """`rnicsim validate` refused the scenario: .stderr says why."""


# rnicsim's exit statuses (app/cli/cli.h): 2 refused the input (kExitInvalid); 127: not
# started (the shell's number).
EXIT_REFUSED = 2
EXIT_NOT_STARTED = 127


def for_exit(exit_code):
    """The class for a non-zero exit of rnicsim."""
    return ScenarioError if exit_code == EXIT_REFUSED else RunError
