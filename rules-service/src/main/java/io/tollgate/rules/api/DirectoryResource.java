package io.tollgate.rules.api;

import java.time.Duration;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

import org.eclipse.microprofile.openapi.annotations.Operation;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import io.tollgate.rules.auth.Needs;
import io.tollgate.rules.domain.DirectoryCopyFormat;
import io.tollgate.rules.domain.Scope;
import io.tollgate.rules.http.Headers;
import io.tollgate.rules.http.Paging;
import io.tollgate.rules.store.DirectoryCopies;
import io.tollgate.rules.store.DirectoryFeed;

/**
 * What gateways read to keep their copy of the directory. {@code GET /api/v1/directory?since=<seq>&limit=<n>}: a
 * {@code DirectoryChanges} page written by THE directory codec (the one gateways parse it with), its entries as
 * stored, with the directory's last change in {@code Tollgate-Directory-Seq}. When {@code since} is ahead of the
 * directory (a rebuilt database), the page starts from 0 and carries {@code Tollgate-Directory-Reset: true}: the
 * gateway drops its copy first. {@code GET /api/v1/directory/copy}: the whole directory in
 * {@link DirectoryCopyFormat}, for a gateway too far behind for pages.
 */
@Path("/api/v1/directory")
@Needs(Scope.GATEWAY)
public class DirectoryResource {

    static final int DEFAULT_PAGE = 10_000;
    static final int MAX_PAGE = 50_000;
    /** A copy of a million clients takes seconds to read; one that takes this long is not coming. */
    private static final Duration COPY_TIMEOUT = Duration.ofMinutes(2);

    private final DirectoryFeed feed;
    private final DirectoryCopies copies;

    DirectoryResource(DirectoryFeed feed, DirectoryCopies copies) {
        this.feed = feed;
        this.copies = copies;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "The tenants and clients changed after since, oldest first, each in its latest state")
    public Uni<Response> changes(@QueryParam("since") String since, @QueryParam("limit") String limit) {
        long from = Paging.whole("since", since, 0, 0, Long.MAX_VALUE);
        int size = Paging.limit("limit", limit, DEFAULT_PAGE, MAX_PAGE);
        return feed.since(from, size)
                .map(page -> {
                    Response.ResponseBuilder answer = Response.ok(page.json())
                            .header(Headers.DIRECTORY_SEQ, page.current());
                    if (page.reset()) {
                        answer.header(Headers.DIRECTORY_RESET, "true");
                    }
                    return answer.build();
                });
    }

    @GET
    @Path("copy")
    @Produces(DirectoryCopyFormat.MEDIA_TYPE)
    @Blocking // streamed out through a blocking stream: tens of MB for a million clients
    @Operation(summary = "Every live tenant and client as of one change, in the compact form of a directory copy")
    public Response copy() {
        DirectoryCopies.Copy copy = copies.copy().await().atMost(COPY_TIMEOUT);
        return Response.ok((StreamingOutput) copy::writeTo)
                .header(Headers.DIRECTORY_SEQ, copy.seq())
                .build();
    }
}
