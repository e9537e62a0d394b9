"""The analysis' errors: codes with their statuses in `apikit.http_errors`."""

from apikit.errors import ServiceError


class TooManyAnalyses(ServiceError):
    """The account has as many analyses queued or running as it may (`analysis.services`)."""

    code = "too_many_analyses"


class AnalysisRunsUsed(ServiceError):
    """The game's analysis was (re)queued as often as a day allows: a failing one is not rerun
    on every request."""

    code = "analysis_runs_used"
