package io.tollgate.gateway.admin;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tollgate.rules.domain.AdminTokenCheck;

/**
 * Who may call the operations: {@code Authorization: Bearer <token>} against {@code tollgate.admin.token} (actor
 * {@code admin}) and the named {@code tollgate.admin.tokens}. Tokens are compared and wrong guesses throttled per
 * client address by {@link AdminTokenCheck}, as the rules service checks its writes; tokens are never logged.
 */
@ApplicationScoped
class AdminTokens {

    private static final Logger LOG = Logger.getLogger(AdminTokens.class);
    private static final String BEARER = "Bearer ";

    private final AdminTokenCheck check;
    private final Counter throttled;

    AdminTokens(AdminConfig config, MeterRegistry meters) {
        this.check = AdminTokenCheck.configured(config.token(), config.tokens(), config.wrongTokens().limit(),
                config.wrongTokens().period());
        this.throttled = Counter.builder("tollgate.admin.throttled")
                .description("admin tokens refused unread: their address had presented too many wrong ones")
                .register(meters);
        if (check.actors().isEmpty()) {
            LOG.warn("no tollgate.admin.token (TOLLGATE_ADMIN_TOKEN) configured: every operation will be refused");
        } else {
            LOG.infof("operations open to %s", check.actors());
        }
    }

    /** Whether {@code authorization} carries a bearer token at all. */
    static boolean bearer(String authorization) {
        return authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length());
    }

    /**
     * Checks the token a bearer {@code authorization} header carries, presented from {@code address}. A refusal
     * unread is counted; an address that has just spent its allowance of wrong tokens is logged.
     */
    AdminTokenCheck.Verdict check(String authorization, String address) {
        AdminTokenCheck.Verdict verdict = check.check(authorization.substring(BEARER.length()).trim(), address);
        if (verdict.throttled()) {
            throttled.increment();
        } else if (verdict.justThrottled()) {
            LOG.warnf("wrong admin tokens from %s: no token from it is read until its allowance refills", address);
        }
        return verdict;
    }
}
