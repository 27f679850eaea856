package io.tollgate.gateway.config;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

/**
 * Everything the gateway reads under {@code tollgate.*} (listed in docs/operations.md, "Configuration"). SmallRye Config
 * checks types at start, so a malformed value stops the gateway with the key's name in the message;
 * the beans that use a value check what types cannot express, naming the key too ({@link ConfigError}).
 */
@ConfigMapping(prefix = "tollgate")
public interface GatewayConfig {

    /** Where requests go and how they are read. */
    Gateway gateway();

    /** Where the rules come from and where the last good set is kept. */
    Rules rules();

    /** The counter store. */
    Store store();

    /** Charging what requests really used (rules with {@code settle}). */
    Settle settle();

    /** Token leases of busy clients' buckets (docs/leases.md). */
    Leases leases();

    /** Rejections this gateway remembers. */
    Rejections rejections();

    /** Rejections this gateway remembers. */
    interface Rejections {

        /**
         * Whether a rejected bucket's requests are answered 429 from this gateway's memory until the bucket's retry
         * time, and one request probes when it runs out (outcome {@code cached_rejected}); off, every request goes to
         * the store, and a flooding client costs a store call per request.
         */
        @WithDefault("true")
        boolean remembered();
    }

    /** Token leases. */
    interface Leases {

        /**
         * Whether this gateway leases tokens of busy clients' token buckets and GCRA buckets (rules with
         * {@code "lease": "off"} never do); off, every request of every rule is checked in the store.
         */
        @WithDefault("true")
        boolean enabled();
    }

    /** Rules with {@code settle}. */
    interface Settle {

        /**
         * The largest usage an answer may report; a larger one is ignored (counted and logged), so a backend's
         * nonsense cannot put a client into debt for years.
         */
        @WithDefault("1000000000")
        long maxUsage();

        /**
         * The most bytes a compressed answer ({@code gzip}, {@code deflate}) is decompressed to while its usage is
         * read; past them it is read no further and charged {@code settle.otherwise}, so an answer that inflates to
         * gigabytes (a zip bomb) costs the gateway no more than this.
         */
        @WithDefault("64M")
        MemorySize maxDecodedSize();

        /**
         * How long the client of an answer whose usage is still to come may take none of it (a flow-control window
         * it keeps shut, a socket it does not read) before the gateway lets it go: resets its stream (HTTP/2) or
         * closes its connection (HTTP/1.1) and reads the rest of the answer for the usage, as for a client that left.
         */
        @WithDefault("60s")
        Duration clientStall();

        /**
         * The most bytes of an answer the gateway reads for its usage once the client has left; past them the answer
         * is cut and charged {@code settle.otherwise}.
         */
        @WithDefault("64M")
        MemorySize restMaxSize();

        /**
         * How long the gateway reads an answer for its usage once the client has left; past it the answer is cut and
         * charged {@code settle.otherwise}.
         */
        @WithDefault("2m")
        Duration restTimeout();
    }

    /** Proxying and request reading. */
    interface Gateway {

        /** The default backend URL, used for every path no prefix route claims, e.g. {@code http://127.0.0.1:9090}. */
        URI upstream();

        /** Prefix routes to other backends, by name; the longest matching prefix wins. */
        Map<String, Route> routes();

        /** The request header that carries the API key of {@code api_key} rules. */
        @WithDefault("X-API-Key")
        String apiKeyHeader();

        /** CIDRs (IPv4 or IPv6) of proxies whose {@code X-Forwarded-For} is believed; none by default. */
        Optional<List<String>> trustedProxies();

        /** How many leading bits of an IPv6 client's address its {@code ip} key keeps (1-128). */
        @WithDefault("64")
        int ipv6Prefix();

        /** Peers whose connections are closed for flooding again and again (docs/protocols.md, "Floods"). */
        RepeatOffenders repeatOffenders();

        /** This gateway's id, sent to the rules service as {@code Tollgate-Gateway}; the host name and pid by default. */
        Optional<String> instanceId();

        /**
         * The base URL of this gateway's management interface as the rules service reaches it, sent with every call
         * to the rules service as {@code Tollgate-Gateway-Admin} (taken only from a call with a valid admin token);
         * by default {@code http://<quarkus.management.host>:<the port the management interface listens on>}, with
         * 127.0.0.1 for a host of 0.0.0.0. Set it when the rules service reaches the gateway by another name.
         */
        Optional<URI> adminUrl();

        /** How long the gateway waits for a backend connection before answering 502. */
        @WithDefault("2s")
        Duration connectTimeout();

        /** How long a backend may stay silent before the gateway answers 504. */
        @WithDefault("30s")
        Duration upstreamTimeout();

        /**
         * The Quarkus TLS configuration ({@code quarkus.tls.<name>.*}) whose trust store, and key store for an upstream
         * that asks for a client certificate, the gateway uses toward {@code https://} and {@code h2://} upstreams;
         * the JVM's trust store when unset.
         */
        Optional<String> upstreamTlsConfigurationName();
    }

    /**
     * A peer address (an IPv6 one by its {@code ipv6-prefix}) whose connections the gateway closes for flooding (an
     * HTTP/2 rapid reset, an endless header block) more than {@code max-closes} times within {@code window} has its
     * next connections closed at their first request, unserved, for {@code penalty}: each flood connection then costs
     * the gateway one request instead of hundreds. A trusted proxy is never penalised.
     */
    interface RepeatOffenders {

        /** Whether repeat offenders are penalised at all. */
        @WithDefault("true")
        boolean enabled();

        /** Closes for flooding a peer may have within {@code window} (0 or more); one more starts its penalty. */
        @WithDefault("5")
        int maxCloses();

        /** How far back a peer's closes for flooding are counted. */
        @WithDefault("1m")
        Duration window();

        /** How long a peer's connections are refused once its penalty starts. */
        @WithDefault("5m")
        Duration penalty();

        /**
         * How many peers the gateway remembers at once (peers with closes in the window or a penalty in force); past
         * it, a new peer's closes are not counted, so a flood from many addresses costs the gateway bounded memory.
         */
        @WithDefault("10000")
        int maxPeers();
    }

    /** A prefix route: requests whose path starts with {@code prefix} go to {@code url}. */
    interface Route {

        /** The path prefix, starting with {@code /}, matched on whole segments. */
        String prefix();

        /** The backend URL for this prefix. */
        URI url();
    }

    /** The rules service client. */
    interface Rules {

        /** The rules service address, e.g. {@code http://127.0.0.1:8081}. */
        @WithDefault("http://127.0.0.1:8081")
        URI url();

        /**
         * The bearer token the gateway presents to the rules service for its polls, watch stream and directory
         * (env {@code TOLLGATE_RULES_TOKEN}), a {@code gateway}-scope token there; unset: {@code tollgate.admin.token}.
         * The rules service reaches this gateway's operations with it too, where it reads and writes nothing.
         */
        Optional<String> token();

        /** How often the gateway asks for a new rule set (with {@code If-None-Match}). */
        @WithDefault("30s")
        Duration pollInterval();

        /** The file that holds the last good rule set, read at start when the rules service is down. */
        @WithDefault("tollgate-rules-snapshot.json")
        String snapshot();

        /** Whether to follow the rules service's watch stream, applying each new version at once. */
        @WithDefault("true")
        boolean watch();

        /**
         * Whether each call to the rules service announces this gateway ({@code Tollgate-Gateway} and its management
         * address), so that it counts as a live gateway of the fleet; false for a process that only reads the rules
         * (an AOT training run, the demo's in-memory gateways), whose count would shrink every gateway's share.
         */
        @WithDefault("true")
        boolean register();
    }

    /** The counter store and what protects the hot path from it. */
    interface Store {

        /** {@code redis} (shared, exact across gateways) or {@code memory} (this process only). */
        @WithDefault("redis")
        StoreType type();

        /**
         * How long a check waits for the store before the rule's failure mode decides. Long enough that a
         * crowded machine's store answers in time (bench/gateway/store-timeout.sh counts the checks left to the
         * failure mode at saturation per timeout), short enough that a silent store costs little: it is paid
         * only until calls count as unanswered and the breaker opens.
         */
        @WithDefault("100ms")
        Duration timeout();

        /** The circuit breaker in front of the store. */
        Breaker breaker();

        /**
         * Whether the checks one event loop asks for while it handles a batch of ready sockets go to Redis
         * together, each client's still all-or-nothing on its own: on standalone Redis as ONE call of the
         * check script, on a Cluster as one call per node.
         */
        @WithDefault("true")
        boolean coalesce();
    }

    /** The store's circuit breaker. */
    interface Breaker {

        /** How many of the latest checks the breaker looks at. */
        @WithDefault("100")
        int window();

        /** The share of failed checks in the window, from 0.01 to 1, that opens the breaker. */
        @WithDefault("0.6")
        double failureRate();

        /**
         * How long a call may stay unanswered before it counts as a failure for the breaker. A check waits only
         * {@code tollgate.store.timeout}; an answer that comes later than that but before this counts as a
         * success (the store is slow, not dead) and closes the breaker.
         */
        @WithDefault("500ms")
        @WithName("unanswered-after")
        Duration unansweredAfter();

        /** How long an open breaker answers without calling the store before one probe goes through. */
        @WithDefault("1s")
        @WithName("open-for")
        Duration openFor();
    }

    /** Which counter store the gateway uses. */
    enum StoreType {
        /** Redis standalone or Cluster, configured with {@code quarkus.redis.*}. */
        REDIS,
        /** An in-process store: exact for one gateway only. */
        MEMORY
    }
}
