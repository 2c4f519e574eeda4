"""Exceptions raised by the gtformer reader and client."""


class GtformerError(Exception):
    """A model folder or corpus that cannot be read: the message names the
    file and the problem."""


class ServerError(GtformerError):
    """An error answer from `gtformer serve`.

    status is the HTTP status (0 when the server could not be reached) and
    message the server's own "error" text (or the transport's reason).
    """

    def __init__(self, status, message, url=""):
        self.status = status
        self.message = message
        self.url = url
        where = f" ({url})" if url else ""
        super().__init__(f"gtformer server: HTTP {status}{where}: {message}")
