"""The only code that changes a host: each action is announced (the exact command) before it runs."""
