/**
 * How the process logs: SLF4J over Logback, configured in code (no XML is parsed at start). Every
 * module's log lines come out in one format, human-readable text or one JSON object per line:
 * {@code java.util.logging} and {@code System.Logger} records (the {@code gossip} module logs
 * through {@code System.Logger}) are bridged into SLF4J. An operator's own {@code logback.xml},
 * given with {@code -Dlogback.configurationFile}, replaces all of it.
 */
package dev.chorus.node.logging;
