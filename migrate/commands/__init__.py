"""Sub-commands of the ``msmigrate`` CLI; see ``migrate.cli``."""
