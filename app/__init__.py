"""The editor application: main window, actions, documents, undo commands and the CLI."""
