"""Shared test set-up: make sure our pytest plugin is active even from a plain checkout."""


def pytest_configure(config):
    # Installed, the plugin loads through its pytest11 entry point (named
    # "smt"); from a checkout that is not installed, load it here.
    if not config.pluginmanager.has_plugin("smt"):
        config.pluginmanager.import_plugin("smt.testing.plugin")
