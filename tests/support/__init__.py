"""What the tests share: the CLI runners, the vLLM stand-in server, real services (an sshd on 127.0.0.1, a
booted systemd container, journal files written by systemd-journal-remote), fake Runners, free ports."""
