package io.tollgate.gateway.admin;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.gateway.config.AdminConfig;
import io.tollgate.gateway.config.GatewayConfig;
import io.tollgate.rules.domain.AdminTokenCheck;
import io.tollgate.rules.domain.Scope;

/**
 * Who may call the operations: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}, scope {@code admin}), the named, scoped {@code tollgate.admin.tokens}, and the token this gateway
 * gives the rules service ({@code tollgate.rules.token}, actor {@value #RULES_SERVICE}, scope {@code read}), with
 * which the rules service's live view and explain reach this gateway. Tokens are compared and wrong guesses
 * throttled per client address by {@link AdminTokenCheck}, as the rules service checks its own; tokens are never
 * logged.
 */
@ApplicationScoped
class AdminTokens {

    /** The actor of {@code tollgate.rules.token} here. */
    static final String RULES_SERVICE = "rules-service";
    private static final Logger LOG = Logger.getLogger(AdminTokens.class);

    private final AdminTokenCheck check;
    private final Counter throttled;

    AdminTokens(AdminConfig config, GatewayConfig gateway, MeterRegistry meters) {
        Map<String, AdminTokenCheck.Token> named = new LinkedHashMap<>();
        config.tokens().forEach((name, t) -> named.put(name, new AdminTokenCheck.Token(t.token(), t.scope())));
        Optional<String> rulesToken = gateway.rules().token().filter(t -> !t.equals(config.token().orElse(null)));
        rulesToken.ifPresent(t -> named.putIfAbsent(RULES_SERVICE, new AdminTokenCheck.Token(t, Scope.READ)));
        this.check = AdminTokenCheck.configured(config.token(), named, config.wrongTokens().limit(),
                config.wrongTokens().period());
        this.throttled = Counter.builder("tollgate.admin.throttled")
                .description("wrong admin tokens refused with 429: their address had presented too many")
                .register(meters);
        if (check.actors().isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every operation will be refused");
        } else {
            LOG.infof("operations open to (actor=scope) %s", check.actors());
        }
    }

    /**
     * Checks {@code token}, presented from {@code address}. A throttled wrong token is counted; an address that has just
     * spent its allowance of wrong tokens is logged.
     */
    AdminTokenCheck.Verdict check(String token, String address) {
        AdminTokenCheck.Verdict verdict = check.check(token, address);
        if (verdict.throttled()) {
            throttled.increment();
        } else if (verdict.justThrottled()) {
            LOG.warnf(
                    "wrong admin tokens from %s: its wrong tokens are refused with 429, and not logged, until its allowance refills",
                    address);
        }
        return verdict;
    }
}
