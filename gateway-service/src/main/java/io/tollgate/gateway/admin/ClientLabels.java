package io.tollgate.gateway.admin;

import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.tollgate.gateway.sync.RulesLoader;
import io.vertx.core.Future;

/**
 * The directory's names for clients, for the operators' answers: clients appear as the SHA-256 hex digest of
 * their key, which is also how the client directory keys them. The gateway's copy of the directory keeps no
 * labels (a million of them would cost more than the rest of the copy), so they are asked of the rules service,
 * a few at a time, when an operator asks; when it cannot answer, no client has a label.
 */
@ApplicationScoped
class ClientLabels {

    private static final Logger LOG = Logger.getLogger(ClientLabels.class);

    private final RulesLoader rules;

    ClientLabels(RulesLoader rules) {
        this.rules = rules;
    }

    /** The label of each client of {@code digests} that has one; never a failed future. */
    Future<Map<String, String>> labels(List<String> digests) {
        return rules.labels(digests).otherwise(err -> {
            LOG.debugf("client labels unavailable: %s", err.toString());
            return Map.of();
        });
    }
}
