package io.tollgate.rules.api;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;

import io.smallrye.mutiny.Uni;
import io.tollgate.rules.store.DirectoryFeed;

/**
 * {@code GET /api/v1/directory?since=<seq>&limit=<n>}: what gateways read to keep their copy of the directory, a
 * {@code DirectoryChanges} page written by THE directory codec (the one gateways parse it with), its entries as
 * stored. When
 * {@code since} is ahead of the directory (a rebuilt database), the page starts from 0 and carries
 * {@code Tollgate-Directory-Reset: true}: the gateway drops its copy first.
 */
@Path("/api/v1/directory")
public class DirectoryResource {

    static final int DEFAULT_PAGE = 10_000;
    static final int MAX_PAGE = 50_000;

    private final DirectoryFeed feed;

    DirectoryResource(DirectoryFeed feed) {
        this.feed = feed;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The tenants and clients changed after since, oldest first, each in its latest state")
    public Uni<Response> changes(@QueryParam("since") String since, @QueryParam("limit") String limit) {
        long from = Paging.whole("since", since, 0, 0, Long.MAX_VALUE);
        int size = Paging.limit("limit", limit, DEFAULT_PAGE, MAX_PAGE);
        return feed.since(from, size)
                .map(page -> {
                    Response.ResponseBuilder answer = Response.ok(page.json());
                    if (page.reset()) {
                        answer.header(Headers.DIRECTORY_RESET, "true");
                    }
                    return answer.build();
                });
    }
}
