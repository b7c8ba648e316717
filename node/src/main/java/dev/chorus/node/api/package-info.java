/**
 * The node's local HTTP API on Vert.x: status, peers, metrics history, health and readiness as
 * JSON, {@code /metrics} in the Prometheus text exposition format, and a dashboard page at {@code /} that reads
 * the JSON from the browser. Reads the node through
 * {@link dev.chorus.node.api.NodeView} and {@link dev.chorus.node.api.NodeMetrics}; never changes
 * it. Bound to 127.0.0.1 by default.
 */
package dev.chorus.node.api;
