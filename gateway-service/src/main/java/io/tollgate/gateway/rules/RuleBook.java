package io.tollgate.gateway.rules;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.domain.Rule;
import io.tollgate.rules.domain.RuleSet;

/**
 * The rule set this gateway enforces now, swapped whole when a newer valid version arrives. Readers on
 * the hot path see one immutable compiled version; no lock is taken per request.
 */
@ApplicationScoped
public class RuleBook {

    private static final Logger LOG = Logger.getLogger(RuleBook.class);

    private volatile CompiledRules current = CompiledRules.EMPTY;
    private volatile boolean loaded;
    private volatile long confirmedAtNanos = System.nanoTime();

    RuleBook(MeterRegistry registry) {
        registry.gauge("tollgate.rules.version", this, book -> book.current.source().version());
        registry.gauge("tollgate.rules.age.seconds", this, book -> book.age().toMillis() / 1000.0);
    }

    /** The enabled rules for a request, in set order. */
    public List<Rule> match(String method, String path) {
        return current.match(method, path);
    }

    /**
     * The header names (lower case) that a {@code header:} key of the set in force counts by, whether or not its rule
     * matches a given request or is enabled.
     */
    public Set<String> keyHeaders() {
        return current.keyHeaders();
    }

    /** The rule with this id in the set in force (enabled or not), if there is one. */
    public Optional<Rule> rule(String id) {
        return current.source().rules().stream().filter(r -> r.id().equals(id)).findFirst();
    }

    /** Whether a rule set (from the service or the snapshot) has been loaded: the gateway is ready. */
    public boolean loaded() {
        return loaded;
    }

    /** The version in force; 0 before any. */
    public long version() {
        return current.source().version();
    }

    /** The set in force. */
    RuleSet ruleSet() {
        return current.source();
    }

    /** How long since the set in force was last confirmed current by the rules service (or loaded). */
    Duration age() {
        return Duration.ofNanos(System.nanoTime() - confirmedAtNanos);
    }

    /**
     * Makes {@code set} the one in force unless it is the version already in force; true if applied. A
     * different version, even a lower one, wins: the rules service is the authority (its store may have
     * been rebuilt).
     */
    public synchronized boolean apply(RuleSet set, String from) {
        confirmedAtNanos = System.nanoTime();
        if (loaded && set.version() == current.source().version()) {
            return false;
        }
        current = new CompiledRules(set);
        loaded = true;
        LOG.infof("rules version %d applied from %s (%d rules)", set.version(), from, set.rules().size());
        return true;
    }

    /** The rules service said the set in force is still current (304). */
    public void confirmed() {
        confirmedAtNanos = System.nanoTime();
    }
}
