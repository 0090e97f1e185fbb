"""One lint rule per module; ``migrate.lint.registry`` lists them."""
