package io.tollgate.gateway.sync;

/** What the watch stream tells its reader. */
interface SseListener {

    /**
     * One complete server-sent event: its type (the {@code event:} field, {@code message} when there is none) and
     * its data lines joined by newlines.
     */
    void event(String type, String data);

    /** The stream ended ({@code error} null) or broke. */
    void closed(Throwable error);
}
