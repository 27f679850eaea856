package io.tollgate.gateway.support;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The ERROR lines (or, from {@link #collect(Level)}, those of another level and worse) the application in this JVM logs
 * while one is open (a handler on the root logger, which every logger of the gateway, Vert.x and Netty reaches): how a
 * test sees that a request logged nothing per chunk, or a penalty one line.
 */
public final class ErrorLines extends Handler implements AutoCloseable {

    private final Queue<String> lines = new ConcurrentLinkedQueue<>();

    private final Level least;

    private ErrorLines(Level least) {
        this.least = least;
    }

    /** Starts collecting ERROR lines. */
    public static ErrorLines collect() {
        return collect(Level.SEVERE);
    }

    /** Starts collecting the lines of {@code least} and worse. */
    public static ErrorLines collect(Level least) {
        ErrorLines errors = new ErrorLines(least);
        Logger.getLogger("").addHandler(errors);
        return errors;
    }

    /** The messages of the lines collected so far, each with its logger's name. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void publish(LogRecord record) {
        if (record.getLevel().intValue() >= least.intValue()) {
            lines.add(record.getLoggerName() + ": " + record.getMessage());
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
