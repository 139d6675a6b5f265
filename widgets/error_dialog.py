"""What a user reads when something fails: a sentence, never a Python exception's text.

A FormatError already names the file, the place and the reason; an OS error becomes "FILE: reason";
an error nobody expected gets a plain sentence, and its Python details go to the dialog's
"Show Details…" section (for a bug report), never to its message or the status line.
"""

from __future__ import annotations

import traceback

from PySide6.QtWidgets import QMessageBox, QWidget

from model.errors import FormatError


def user_message(error: BaseException) -> str:
    """The sentence an expected error carries: a FormatError's, an OS error's reason with its file,
    the message a refusal was raised with (a KeyError without its quotes)."""
    if isinstance(error, FormatError):
        return str(error)
    if isinstance(error, OSError):
        reason = error.strerror or (str(error.args[-1]) if error.args else "") or "the file could not be used"
        return f"{error.filename}: {reason}" if error.filename else reason
    if error.args and isinstance(error.args[0], str) and error.args[0].strip():
        text = error.args[0].strip()
        return text[0].upper() + text[1:]
    return unexpected_message("The operation")


def file_message(error: OSError, path) -> str:
    """An OS error's reason, naming `path` when the error does not name its own file."""
    return user_message(error) if error.filename else f"{path}: {user_message(error)}"


def unexpected_message(doing: str, outcome: str = "what is open is unchanged") -> str:
    """'Opening the scene stopped on a problem Boscage did not expect; what is open is unchanged.'"""
    return f"{doing} stopped on a problem Boscage did not expect; {outcome}."


def error_details(error: BaseException) -> str:
    """The Python account of an error, for the dialog's details section only."""
    return "".join(traceback.format_exception(type(error), error, error.__traceback__)).strip()


def error_box(parent: QWidget | None, title: str, text: str, details: str | None = None) -> QMessageBox:
    """A critical message box with `details` tucked into its Show Details section."""
    box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("error_box")
    if details:
        box.setInformativeText("Show Details holds what a bug report needs.")
        box.setDetailedText(details)
    return box
