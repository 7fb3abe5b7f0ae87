package io.weightstore.gateway;

/** What the access log line adds after the status, such as a client that left mid-transfer. */
record AccessNote(String text) {}
