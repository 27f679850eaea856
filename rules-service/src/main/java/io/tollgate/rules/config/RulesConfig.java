package io.tollgate.rules.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.tollgate.rules.domain.Scope;

/** The rules service's own settings ({@code tollgate.*}); the datasource is {@code quarkus.datasource.*}. */
@ConfigMapping(prefix = "tollgate")
public interface RulesConfig {

    /** Who may write rules. */
    Admin admin();

    /** The registry of gateways that poll this service, shared by every instance through PostgreSQL. */
    Gateways gateways();

    /** The watch stream. */
    Watch watch();

    /** The client directory. */
    Directory directory();

    /** The web console under {@code /console}. */
    Console console();

    /** Bearer tokens; the token's name is the actor recorded in the history, its scope what it may do. */
    interface Admin {

        /**
         * The {@code admin}-scope token of the actor {@code admin} (env {@code TOLLGATE_ADMIN_TOKEN}); unset: no
         * such actor.
         */
        Optional<String> token();

        /**
         * Further named tokens, {@code tollgate.admin.tokens."alice".token=...} with
         * {@code tollgate.admin.tokens."alice".scope=admin|read|gateway}; the name is the actor.
         */
        Map<String, NamedToken> tokens();

        /** How many wrong tokens a client address may present before its wrong tokens are throttled for a while. */
        WrongTokens wrongTokens();
    }

    /** One named token. */
    interface NamedToken {

        /** The secret presented as {@code Authorization: Bearer <token>}. */
        String token();

        /** What it may do: {@code admin} (everything), {@code read} (every GET) or {@code gateway} (poll and watch). */
        Scope scope();
    }

    /**
     * Wrong admin tokens a client address may present: {@code limit} at once, refilled at {@code limit} per
     * {@code period}; beyond that, its wrong tokens are refused with 429 until the allowance refills. A right token is always
     * accepted.
     */
    interface WrongTokens {

        @WithDefault("10")
        long limit();

        @WithDefault("1m")
        Duration period();
    }

    /** The gateway registry. */
    interface Gateways {

        /** A gateway counts as live when it was seen within this window (two poll intervals). */
        @WithDefault("60s")
        Duration liveWindow();

        /**
         * At most this many gateways are registered, over every instance; a new one beyond it drops the longest
         * silent, never itself.
         */
        @WithDefault("1000")
        int maxTracked();

        /**
         * A gateway silent this long is forgotten: until then {@code GET /api/v1/gateways} lists it as not live
         * (at least the live window).
         */
        @WithDefault("15m")
        Duration forgetAfter();
    }

    /** The watch stream. */
    interface Watch {

        /** How often a watch stream gets a heartbeat comment, so idle connections stay open through proxies. */
        @WithDefault("15s")
        Duration heartbeat();

        /** At most this many watch streams are open at once on this instance; beyond, 503 with Retry-After. */
        @WithDefault("1000")
        int maxStreams();

        /** The PostgreSQL NOTIFY channel that carries committed versions between instances. */
        @WithDefault("tollgate_rules")
        String channel();
    }

    /** The client directory's bulk import ({@code PUT /api/v1/clients}, NDJSON). */
    interface Directory {

        /** An import of more lines than this is refused (413), nothing changed. */
        @WithDefault("1000000")
        long importMaxLines();

        /** An import body larger than this is refused (413), nothing changed. */
        @WithDefault("256M")
        MemorySize importMaxBody();
    }

    /** The console's login sessions, held in PostgreSQL: every instance knows every session. */
    interface Console {

        /** A session ends after this long without a request. */
        @WithDefault("30m")
        Duration idleTimeout();

        /** A session ends this long after its login, however busy it is. */
        @WithDefault("12h")
        Duration maxAge();

        /** At most this many sessions are held; a login beyond it ends the least recently used one. */
        @WithDefault("1000")
        int maxSessions();
    }
}
