"""The course's data: its files read, checked against their schema, and held as typed records."""
