package io.weightstore.format;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;

/**
 * What was wrong with a JSON document, in one line for a person: Jackson's own message adds a second
 * line naming an internal source ("[Source: REDACTED ...]"), which says nothing to whoever wrote the file.
 */
public final class JsonErrors {
    private JsonErrors() {}

    public static String describe(IOException e) {
        if (!(e instanceof JsonProcessingException json)) {
            return e.getMessage();
        }
        JsonLocation at = json.getLocation();
        return json.getOriginalMessage() + (at == null || at.getLineNr() < 1 ? "" : " (line " + at.getLineNr() + ", column "
                + at.getColumnNr() + ")");
    }
}
