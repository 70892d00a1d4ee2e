// The one Gson of the client: records and enums (by @SerializedName), nulls left out when
// writing (an absent optional field), provider payloads kept as JsonElement.
package dev.levelcode.sessions.core.rpc;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import java.lang.reflect.Type;

public final class Json {
  private Json() {}

  public static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

  public static JsonElement tree(Object o) {
    return GSON.toJsonTree(o);
  }

  public static <T> T from(JsonElement e, Type type) {
    return GSON.fromJson(e, type);
  }

  public static String write(Object o) {
    return GSON.toJson(o);
  }
}
