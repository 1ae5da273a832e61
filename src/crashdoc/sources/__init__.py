"""Where evidence comes from: a log file or standard input, a journal query, a systemd unit, a followed file or
journal, a command run under crashdoc. Each source yields bytes or records and typed facts; nothing here parses
log text (that is parse/)."""
