package io.tollgate.rules.domain;

import java.util.Optional;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Where a rule reads what a request really used, once its answer has ended (docs/rules.md, "settle"): the
 * request is admitted by spending the rule's {@code cost} (the reservation), and the gateway then spends the
 * difference, or gives it back.
 *
 * @param from
 * {@code header:<Name>} (a response header holding a whole number), {@code json:<pointer>} (an RFC 6901
 * JSON pointer into the response body; for {@code text/event-stream}, into the last {@code data:} event that
 * has it), or {@code response_bytes} (the size of the response body)
 * @param otherwise
 * the units charged when the usage never comes (an answer cut short, a missing or malformed usage, a body the
 * gateway cannot decode), from 0 to the largest cost a rule may give (1,000,000,000); {@code null} (left out of
 * the wire form): the reservation, the rule's {@code cost}. An answer cut short is charged at least the
 * reservation; one whose client left is read on for its usage first, within the gateway's {@code tollgate.settle}
 * bounds
 */
public record Settle(String from, @JsonInclude(JsonInclude.Include.NON_NULL) Long otherwise) {

    /** A settle read from {@code from}, charging the reservation when the usage never comes. */
    public Settle(String from) {
        this(from, null);
    }

    /** What {@code from} names. */
    public enum Source {
        HEADER, JSON, RESPONSE_BYTES
    }

    /** An RFC 9110 field name. */
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    private static final String HEADER = "header:";
    private static final String JSON = "json:";
    private static final String RESPONSE_BYTES = "response_bytes";
    /** Longest header name or pointer: usage lives near the top of an answer. */
    static final int MAX_ARGUMENT = 200;

    /** What {@code from} names; only for a valid {@code from} ({@link #problem}). */
    @JsonIgnore
    public Source source() {
        if (from.startsWith(HEADER)) {
            return Source.HEADER;
        }
        return from.startsWith(JSON) ? Source.JSON : Source.RESPONSE_BYTES;
    }

    /** The header name or JSON pointer; empty for {@code response_bytes}. */
    @JsonIgnore
    public String argument() {
        return switch (source()) {
            case HEADER -> from.substring(HEADER.length());
            case JSON -> from.substring(JSON.length());
            case RESPONSE_BYTES -> "";
        };
    }

    /** What an answer whose usage never comes is charged: {@link #otherwise}, else the reservation {@code cost}. */
    @JsonIgnore
    public long otherwiseOr(long cost) {
        return otherwise == null ? cost : otherwise;
    }

    /** Why {@code otherwise} is not a charge, or empty when it is one (or left out). */
    public static Optional<String> problem(Long otherwise) {
        if (otherwise != null && (otherwise < 0 || otherwise > Constraints.MAX_COST)) {
            return Optional.of("must be a whole number from 0 to " + Constraints.MAX_COST);
        }
        return Optional.empty();
    }

    /** Why {@code from} names no source of usage, or empty when it names one. */
    public static Optional<String> problem(String from) {
        String expected = "must be header:<Name>, json:<pointer> (e.g. json:/usage/total_tokens) or response_bytes";
        if (from == null || from.isEmpty()) {
            return Optional.of("is required: " + expected.substring("must be ".length()));
        }
        if (from.equals(RESPONSE_BYTES)) {
            return Optional.empty();
        }
        if (from.startsWith(HEADER)) {
            String name = from.substring(HEADER.length());
            if (name.length() > MAX_ARGUMENT || !TOKEN.matcher(name).matches()) {
                return Optional.of("must name a header after header: (letters, digits and !#$%&'*+.^_`|~-, at most "
                        + MAX_ARGUMENT + ")");
            }
            return Optional.empty();
        }
        if (from.startsWith(JSON)) {
            String pointer = from.substring(JSON.length());
            if (pointer.length() > MAX_ARGUMENT || !pointer.startsWith("/")) {
                return Optional.of("must give a JSON pointer after json:, starting with / (e.g. json:/usage/total_tokens)"
                        + ", at most " + MAX_ARGUMENT + " characters");
            }
            for (int i = pointer.indexOf('~'); i >= 0; i = pointer.indexOf('~', i + 1)) {
                if (i + 1 >= pointer.length() || (pointer.charAt(i + 1) != '0' && pointer.charAt(i + 1) != '1')) {
                    return Optional.of("has a ~ not followed by 0 or 1 in its JSON pointer (~0 is ~, ~1 is /)");
                }
            }
            return Optional.empty();
        }
        return Optional.of(expected);
    }
}
