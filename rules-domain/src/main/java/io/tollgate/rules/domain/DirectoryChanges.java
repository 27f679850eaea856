package io.tollgate.rules.domain;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * What a gateway reads to keep its copy of the client directory: the entries changed after a sequence number,
 * oldest first, a page at a time ({@code GET /api/v1/directory?since=<seq>}). Every directory change takes the
 * next sequence number, so a gateway that applies every page up to {@code seq} knows the directory as of
 * {@code seq}, and one change costs it one small page, never the whole directory.
 *
 * @param seq
 * the sequence number of the last change in this page (the {@code since} asked for when there is none)
 * @param more
 * whether changes after {@code seq} wait: ask again with {@code since=seq}
 * @param tenants
 * the tenants changed, each with its entry now or as deleted
 * @param clients
 * the clients changed, by digest, each with its entry now or as deleted
 */
@JsonPropertyOrder({"seq", "more", "tenants", "clients"})
public record DirectoryChanges(long seq, boolean more, List<TenantChange> tenants, List<ClientChange> clients) {

    public DirectoryChanges {
        tenants = tenants == null ? List.of() : List.copyOf(tenants);
        clients = clients == null ? List.of() : List.copyOf(clients);
    }

    /** A tenant as it is now: {@code entry} {@code null} when it was deleted. */
    @JsonPropertyOrder({"id", "deleted", "entry"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TenantChange(String id, TenantEntry entry) {

        @JsonProperty("deleted")
        public boolean deleted() {
            return entry == null;
        }
    }

    /** A client as it is now, by digest: {@code entry} {@code null} when it was deleted. */
    @JsonPropertyOrder({"digest", "deleted", "entry"})
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ClientChange(String digest, ClientEntry entry) {

        @JsonProperty("deleted")
        public boolean deleted() {
            return entry == null;
        }
    }
}
