package dev.chorus.node.api;

import java.util.Locale;
import java.util.Map;

/**
 * Writes the node's metrics in the Prometheus text exposition format, version 0.0.4: a {@code #
 * HELP} and a {@code # TYPE} line per family, then its samples; label values escaped
 * ({@code \\}, {@code \"}, {@code \n}); histograms as cumulative {@code _bucket} samples with an
 * {@code le} label ending in {@code +Inf}, then {@code _sum} and {@code _count}.
 */
public final class PrometheusText {

    /** The Content-Type of the format. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private PrometheusText() {}

    public static String render(NodeView view, NodeMetrics m, long nowNanos) {
        StringBuilder sb = new StringBuilder();
        training(sb, view.consortium(), m, nowNanos);
        network(sb, view, m);
        staleness(sb, m);
        averaging(sb, m.averaging());
        screening(sb, m);
        consortium(sb, view);
        egressAndCheckpoints(sb, m);
        process(sb, ProcessFootprint.sample());
        return sb.toString();
    }

    /** The local model and its training. */
    private static void training(StringBuilder sb, String consortium, NodeMetrics m, long nowNanos) {
        family(sb, "chorus_model_version", "gauge", "Version of the local model (grows with every step and merge).");
        sample(sb, "chorus_model_version", Map.of("consortium", consortium), m.version());
        family(sb, "chorus_training_steps_total", "counter", "Local optimizer steps over the node's life.");
        sample(sb, "chorus_training_steps_total", Map.of(), m.steps());
        family(sb, "chorus_train_loss", "gauge", "Training loss, exponential moving average over steps.");
        sample(sb, "chorus_train_loss", Map.of(), m.trainLoss());
        family(sb, "chorus_validation_accuracy", "gauge", "Accuracy on the local validation split.");
        sample(sb, "chorus_validation_accuracy", Map.of(), m.accuracy());
        family(sb, "chorus_validation_loss", "gauge", "Log loss on the local validation split.");
        sample(sb, "chorus_validation_loss", Map.of(), m.validationLoss());
        family(sb, "chorus_training_steps_per_second", "gauge", "Local training steps per second, recent window.");
        sample(sb, "chorus_training_steps_per_second", Map.of(), m.stepsPerSecond(nowNanos));
        family(
                sb,
                "chorus_training_collapses_total",
                "counter",
                "Collapses of the model: validation loss or parameter norm far outside the recent range, or non-finite.");
        sample(sb, "chorus_training_collapses_total", Map.of(), m.collapses());
        family(
                sb,
                "chorus_training_rollbacks_total",
                "counter",
                "Reverts of the model and optimizer to a checkpoint from before a collapse.");
        sample(sb, "chorus_training_rollbacks_total", Map.of(), m.rollbacks());
        family(
                sb,
                "chorus_training_early_stopping_triggered",
                "gauge",
                "1 once the validation loss has gone training.early_stopping_patience evaluations without a new best.");
        sample(
                sb,
                "chorus_training_early_stopping_triggered",
                Map.of(),
                m.earlyStopping().triggered() ? 1 : 0);
    }

    /** Bytes by protocol, and the connected peers. */
    private static void network(StringBuilder sb, NodeView view, NodeMetrics m) {
        family(sb, "chorus_network_received_bytes_total", "counter", "Bytes received, by protocol.");
        m.bytesIn().forEach((p, v) -> sample(sb, "chorus_network_received_bytes_total", Map.of("protocol", p), v));
        family(sb, "chorus_network_sent_bytes_total", "counter", "Bytes sent, by protocol.");
        m.bytesOut().forEach((p, v) -> sample(sb, "chorus_network_sent_bytes_total", Map.of("protocol", p), v));
        family(sb, "chorus_connected_peers", "gauge", "Peers with an open connection.");
        sample(sb, "chorus_connected_peers", Map.of(), view.peers().size());
        family(
                sb,
                "chorus_known_disconnected_peers",
                "gauge",
                "Peers with a known address (bootstrap or learnt) and no open connection: those being redialed.");
        sample(sb, "chorus_known_disconnected_peers", Map.of(), view.knownDisconnectedPeers());
        family(sb, "chorus_peer_redials_total", "counter", "Dials after a lost connection or a failed dial.");
        sample(sb, "chorus_peer_redials_total", Map.of(), view.redials());
        secureAggregation(sb, view.secureAggregation());
    }

    /** The {@code secure} strategy's group rounds; nothing for the other strategies. */
    private static void secureAggregation(StringBuilder sb, dev.chorus.node.secagg.SecAggCounters c) {
        if (c == null) {
            return;
        }
        String rounds = "chorus_secagg_rounds_total";
        family(sb, rounds, "counter", "Group rounds, by this node's role and how they ended.");
        sample(sb, rounds, Map.of("role", "member", "outcome", "completed"), c.memberCompleted());
        sample(sb, rounds, Map.of("role", "member", "outcome", "abandoned"), c.memberAbandoned());
        sample(sb, rounds, Map.of("role", "member", "outcome", "unanswered"), c.unanswered());
        sample(sb, rounds, Map.of("role", "relay", "outcome", "completed"), c.relayCompleted());
        sample(sb, rounds, Map.of("role", "relay", "outcome", "abandoned"), c.relayAbandoned());
        sample(sb, rounds, Map.of("role", "relay", "outcome", "cancelled"), c.relayCancelled());
        family(
                sb,
                "chorus_secagg_relaying",
                "gauge",
                "1 while this node takes its turn as a relay (averaging.secure_relay), 0 while it declines.");
        sample(sb, "chorus_secagg_relaying", Map.of(), c.relaying() ? 1 : 0);
        family(
                sb,
                "chorus_secagg_relay_declines_total",
                "counter",
                "Times this node declined the relay's role after relaying slower than its peers (auto).");
        sample(sb, "chorus_secagg_relay_declines_total", Map.of(), c.relayDeclines());
        family(
                sb,
                "chorus_secagg_dropouts_recovered_total",
                "counter",
                "Members of rounds this node relayed whose masks were removed after they dropped out.");
        sample(sb, "chorus_secagg_dropouts_recovered_total", Map.of(), c.dropoutsRecovered());
        family(sb, "chorus_secagg_sent_bytes_total", "counter", "Bytes of group-round frames sent, by role.");
        sample(sb, "chorus_secagg_sent_bytes_total", Map.of("role", "member"), c.bytesSentAsMember());
        sample(sb, "chorus_secagg_sent_bytes_total", Map.of("role", "relay"), c.bytesSentAsRelay());
        family(
                sb,
                "chorus_secagg_refused_frames_total",
                "counter",
                "Group-round frames refused, by reason (only malformed is the sender's fault).");
        for (dev.chorus.node.secagg.SecAggCounters.Refusal r : dev.chorus.node.secagg.SecAggCounters.Refusal.values()) {
            sample(sb, "chorus_secagg_refused_frames_total", Map.of("reason", r.id()), c.refused(r));
        }
    }

    /** How far behind the local model the merged peer models were: a histogram. */
    private static void staleness(StringBuilder sb, NodeMetrics m) {
        family(
                sb,
                "chorus_merge_staleness_versions",
                "histogram",
                "How many versions behind the local model a merged peer model was.");
        long[] counts = m.stalenessCounts();
        long cumulative = 0;
        for (int i = 0; i < counts.length; i++) {
            cumulative += counts[i];
            String le =
                    i < NodeMetrics.STALENESS_BUCKETS.length ? Long.toString(NodeMetrics.STALENESS_BUCKETS[i]) : "+Inf";
            sample(sb, "chorus_merge_staleness_versions_bucket", Map.of("le", le), cumulative);
        }
        sample(sb, "chorus_merge_staleness_versions_sum", Map.of(), m.stalenessSum());
        sample(sb, "chorus_merge_staleness_versions_count", Map.of(), cumulative);
    }

    /** What the screening of received models ({@code averaging.screening}) clipped, refused and excluded. */
    private static void screening(StringBuilder sb, NodeMetrics m) {
        family(
                sb,
                "chorus_averaging_clipped_total",
                "counter",
                "Received models whose difference from the local model was clipped to the screening radius.");
        sample(sb, "chorus_averaging_clipped_total", Map.of(), m.screeningClipped());
        family(
                sb,
                "chorus_averaging_screened_out_total",
                "counter",
                "Received models not merged: too far from the local model (dropped), or from a sender excluded for a"
                        + " cool-down.");
        sample(sb, "chorus_averaging_screened_out_total", Map.of(), m.screeningRefused());
        family(
                sb,
                "chorus_averaging_peers_excluded",
                "gauge",
                "Peers whose models are excluded now, their recent ones having been clipped hard.");
        sample(sb, "chorus_averaging_peers_excluded", Map.of(), m.screeningExcluded());
    }

    /** The averaging engine's rounds, exchanges and updates, and the time training waited for them. */
    private static void averaging(StringBuilder sb, AveragingCounters a) {
        AveragingCounters.Exchanges exchanges = a.exchanges();
        AveragingCounters.Updates updates = a.updates();
        AveragingCounters.Waits waits = a.waits();
        family(
                sb,
                "chorus_averaging_rounds_total",
                "counter",
                "Averaging rounds started (every averaging.every_steps).");
        sample(sb, "chorus_averaging_rounds_total", Map.of(), a.rounds());
        family(sb, "chorus_averaging_exchanges_total", "counter", "Outbound exchanges with peers, by result.");
        sample(sb, "chorus_averaging_exchanges_total", Map.of("result", "ok"), exchanges.sent());
        sample(sb, "chorus_averaging_exchanges_total", Map.of("result", "failed"), exchanges.sendFailures());
        sample(sb, "chorus_averaging_exchanges_total", Map.of("result", "abandoned"), exchanges.abandoned());
        family(
                sb,
                "chorus_averaging_rounds_throttled_total",
                "counter",
                "Rounds skipped because every peer had had its exchanges for the second"
                        + " (averaging.max_exchanges_per_second_per_peer).");
        sample(sb, "chorus_averaging_rounds_throttled_total", Map.of(), exchanges.throttledRounds());
        family(
                sb,
                "chorus_averaging_updates_total",
                "counter",
                "Models, fragments or deltas received from peers, by what became of them.");
        sample(sb, "chorus_averaging_updates_total", Map.of("outcome", "merged"), updates.merged());
        sample(sb, "chorus_averaging_updates_total", Map.of("outcome", "ignored"), updates.ignored());
        sample(sb, "chorus_averaging_updates_total", Map.of("outcome", "refused"), updates.refused());
        family(
                sb,
                "chorus_averaging_versions_clamped_total",
                "counter",
                "Received models that claimed a version further ahead than averaging.max_version_lead.");
        sample(sb, "chorus_averaging_versions_clamped_total", Map.of(), updates.versionsClamped());
        family(
                sb,
                "chorus_averaging_wait_seconds_total",
                "counter",
                "Time training waited, by reason: its own exchanges (drift) or the sync round barrier (barrier).");
        sample(sb, "chorus_averaging_wait_seconds_total", Map.of("reason", "drift"), waits.driftWaitSeconds());
        sample(sb, "chorus_averaging_wait_seconds_total", Map.of("reason", "barrier"), waits.barrierWaitSeconds());
        family(
                sb,
                "chorus_averaging_step_scale",
                "gauge",
                "The scale of this node's steps for its pace against the consortium's (averaging.straggler_compensation);"
                        + " 1 for a node as fast as any.");
        sample(sb, "chorus_averaging_step_scale", Map.of(), a.stepScale());
        family(
                sb,
                "chorus_averaging_round_timeouts_total",
                "counter",
                "Sync rounds this node stopped waiting for after averaging.round_timeout_seconds.");
        sample(sb, "chorus_averaging_round_timeouts_total", Map.of(), waits.roundTimeouts());
    }

    /** Bans, members and announcements: what the node knows of the consortium. */
    private static void consortium(StringBuilder sb, NodeView view) {
        family(
                sb,
                "chorus_exchange_peer_bans_total",
                "counter",
                "Peers banned from the model exchange for repeated faults (bad frames, NaN values, wrong architecture).");
        sample(sb, "chorus_exchange_peer_bans_total", Map.of(), view.peerBans());
        family(
                sb,
                "chorus_consortium_members",
                "gauge",
                "Consortium members heard from on the announcement topic recently (this node not included).");
        sample(sb, "chorus_consortium_members", Map.of(), view.members().size());
        family(
                sb,
                "chorus_announcements_rejected_total",
                "counter",
                "Announcements dropped: unverifiable, not from their author, replayed or dated in the future.");
        sample(sb, "chorus_announcements_rejected_total", Map.of(), view.announcementsRejected());
        membership(sb, view.membership());
    }

    /** Refusals by reason and admitted peers by role; nothing when membership is not enforced. */
    private static void membership(StringBuilder sb, dev.chorus.node.membership.Membership m) {
        if (m == null) {
            return;
        }
        family(
                sb,
                "chorus_membership_refused_total",
                "counter",
                "Peers refused or disconnected by the membership check, by reason.");
        Map<String, Long> refused = new java.util.TreeMap<>();
        for (dev.chorus.privacy.membership.RefusalReason r : dev.chorus.privacy.membership.RefusalReason.values()) {
            refused.put(r.id(), 0L);
        }
        refused.putAll(m.gate().refusals());
        refused.forEach((reason, n) -> sample(sb, "chorus_membership_refused_total", Map.of("reason", reason), n));
        family(sb, "chorus_membership_peers", "gauge", "Admitted peers, by role.");
        Map<String, Long> byRole = new java.util.TreeMap<>();
        for (dev.chorus.privacy.membership.Role r : dev.chorus.privacy.membership.Role.values()) {
            byRole.put(r.id(), 0L);
        }
        for (var a : m.gate().admittedPeers()) {
            byRole.merge(a.certificate().role().id(), 1L, Long::sum);
        }
        byRole.forEach((role, n) -> sample(sb, "chorus_membership_peers", Map.of("role", role), n));
    }

    /** The egress audit log and the checkpoints. */
    private static void egressAndCheckpoints(StringBuilder sb, NodeMetrics m) {
        family(sb, "chorus_egress_audit_records_total", "counter", "Records written to the egress audit log.");
        sample(sb, "chorus_egress_audit_records_total", Map.of(), m.egressAuditRecords());
        family(
                sb,
                "chorus_egress_audit_dropped_total",
                "counter",
                "Outbound payloads the egress audit log could not record (its queue stayed full); should stay 0.");
        sample(sb, "chorus_egress_audit_dropped_total", Map.of(), m.egressAuditDropped());
        family(sb, "chorus_checkpoint_age_seconds", "gauge", "Seconds since the last checkpoint (NaN: none yet).");
        sample(sb, "chorus_checkpoint_age_seconds", Map.of(), m.checkpointAgeSeconds());
        family(sb, "chorus_checkpoints_written_total", "counter", "Checkpoints written since start.");
        sample(sb, "chorus_checkpoints_written_total", Map.of(), m.checkpointsWritten());
        family(
                sb,
                "chorus_api_connections_refused_total",
                "counter",
                "API connections closed on accept because api.max_connections were open.");
        sample(sb, "chorus_api_connections_refused_total", Map.of(), m.apiConnectionsRefused());
    }

    /**
     * The process's resources under the names Prometheus's own client libraries use ({@code process_*}), so that
     * the usual dashboards and leak alerts apply; a figure the platform does not report is left out.
     */
    private static void process(StringBuilder sb, ProcessFootprint p) {
        gauge(sb, "process_resident_memory_bytes", "Resident memory size in bytes.", p.residentBytes());
        gauge(sb, "process_open_fds", "Number of open file descriptors.", p.openFds());
        gauge(sb, "process_max_fds", "Maximum number of open file descriptors.", p.maxFds());
        gauge(sb, "process_threads", "Operating-system threads of the process.", p.threads());
        gauge(
                sb,
                "chorus_jvm_heap_after_gc_bytes",
                "Heap in use right after the latest garbage collection of each pool: the live set, or an upper bound"
                        + " on it until an old-generation collection.",
                p.heapAfterGcBytes());
        gauge(sb, "chorus_jvm_heap_max_bytes", "The heap's limit (-Xmx).", p.heapMaxBytes());
    }

    private static void gauge(StringBuilder sb, String name, String help, long value) {
        if (value >= 0) {
            family(sb, name, "gauge", help);
            sample(sb, name, Map.of(), value);
        }
    }

    private static void family(StringBuilder sb, String name, String type, String help) {
        sb.append("# HELP ")
                .append(name)
                .append(' ')
                .append(help.replace("\\", "\\\\").replace("\n", "\\n"));
        sb.append('\n');
        sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private static void sample(StringBuilder sb, String name, Map<String, String> labels, double value) {
        sb.append(name);
        if (!labels.isEmpty()) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, String> e : new java.util.TreeMap<>(labels).entrySet()) {
                if (!first) {
                    sb.append(',');
                }
                first = false;
                sb.append(e.getKey()).append("=\"").append(escape(e.getValue())).append('"');
            }
            sb.append('}');
        }
        sb.append(' ').append(number(value)).append('\n');
    }

    static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%s", v);
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
