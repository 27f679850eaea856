package io.tollgate.gateway.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tollgate.rules.domain.Scope;

/** The operations on the management interface ({@code quarkus.management.port}) and who may call them. */
@ConfigMapping(prefix = "tollgate.admin")
public interface AdminConfig {

    /**
     * The {@code admin}-scope bearer token of the actor {@code admin} (env {@code TOLLGATE_ADMIN_TOKEN}); unset: no
     * such actor.
     */
    Optional<String> token();

    /**
     * Further named tokens, {@code tollgate.admin.tokens."alice".token=...} with
     * {@code tollgate.admin.tokens."alice".scope=admin|read|gateway}; the name is the actor in the log. Here
     * {@code read} calls the GETs (explain, top), {@code admin} every operation, {@code gateway} none.
     */
    Map<String, NamedToken> tokens();

    /** One named token. */
    interface NamedToken {

        /** The secret presented as {@code Authorization: Bearer <token>}. */
        String token();

        /** What it may do: {@code admin}, {@code read} or {@code gateway}. */
        Scope scope();
    }

    /** How many wrong tokens a client address may present before its wrong tokens are throttled for a while. */
    WrongTokens wrongTokens();

    /** {@code GET /tollgate/top}. */
    Top top();

    /**
     * Wrong tokens a client address may present: {@code limit} at once, refilled at {@code limit} per
     * {@code period}; beyond that, its wrong tokens are refused with 429 until the allowance refills. A right token is always
     * accepted.
     */
    interface WrongTokens {

        @WithDefault("10")
        long limit();

        @WithDefault("1m")
        Duration period();
    }

    /** The sketch of the clients rejected most, per rule. */
    interface Top {

        /** Counters per rule and per half window: the most clients {@code top} can name for one rule. */
        @WithDefault("256")
        int capacity();

        /** How far back {@code top} looks: at least half this, at most all of it. */
        @WithDefault("4m")
        Duration window();
    }
}
