package io.tollgate.rules.http;

/** The header names of the rules service's HTTP contract, in one place. */
public final class Headers {

    /** Sent by a gateway on every poll: its instance id. */
    public static final String GATEWAY = "Tollgate-Gateway";
    /**
     * Sent by a gateway on every poll: the base URL of its management interface, taken only from a poll with an
     * accepted token, and only when its host is the poll's source or an allowed host.
     */
    public static final String GATEWAY_ADMIN = "Tollgate-Gateway-Admin";
    /** On every answer: how many gateways polled within the live window, over every instance. */
    public static final String GATEWAYS = "Tollgate-Gateways";
    /** On a directory page that starts over from 0: the reader drops its copy first. */
    public static final String DIRECTORY_RESET = "Tollgate-Directory-Reset";
    /** On a directory page: the directory's last change, so a reader far behind can take a whole copy instead. */
    public static final String DIRECTORY_SEQ = "Tollgate-Directory-Seq";
    public static final String ETAG = "ETag";
    public static final String IF_MATCH = "If-Match";
    public static final String IF_NONE_MATCH = "If-None-Match";
    public static final String LAST_EVENT_ID = "Last-Event-ID";
    static final String PROBLEM_JSON = "application/problem+json";

    private Headers() {
    }
}
