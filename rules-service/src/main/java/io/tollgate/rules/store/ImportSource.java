package io.tollgate.rules.store;

import io.smallrye.mutiny.Uni;

/** Where the lines of a bulk import come from: read a batch at a time, as the import asks for them. */
public interface ImportSource {

    /** The next batch; {@link ImportBatch#END} after the last line. Called again only once the last has come. */
    Uni<ImportBatch> next();
}
