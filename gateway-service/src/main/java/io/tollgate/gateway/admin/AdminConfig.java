package io.tollgate.gateway.admin;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The operations on the management interface ({@code quarkus.management.port}) and who may call them. */
@ConfigMapping(prefix = "tollgate.admin")
public interface AdminConfig {

    /** The bearer token of the actor {@code admin} (env {@code TOLLGATE_ADMIN_TOKEN}); unset: no such actor. */
    Optional<String> token();

    /** Further named tokens, {@code tollgate.admin.tokens."alice"=...}; the name is the actor in the log. */
    Map<String, String> tokens();

    /** How many wrong tokens a client address may present before its tokens go unread for a while. */
    WrongTokens wrongTokens();

    /** {@code GET /tollgate/top}. */
    Top top();

    /**
     * Wrong tokens a client address may present: {@code limit} at once, refilled at {@code limit} per
     * {@code period}; beyond that, every token it presents is refused unread with 429 until the allowance refills.
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
