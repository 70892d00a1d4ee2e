// Checks the Java records of Protocol against protocol.schema.json, the JSON Schema generated from
// the sidecar's zod schemas: every record has exactly its schema's properties; a required,
// non-nullable property may be a primitive, any other must be boxed (absent = null); types agree
// (string, integer, number, boolean, array, object, enums by their values); nested records are
// checked where they sit. Every method of x-methods is in Protocol.METHODS with the same
// direction and kind and records that match its params and result; every code of x-errors is in
// Protocol.Errors. A protocol change the Java side misses fails here.
package dev.levelcode.sessions.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.annotations.SerializedName;
import dev.levelcode.sessions.core.rpc.Protocol;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class ProtocolSchemaTest {
  static final JsonObject SCHEMA = load();

  static JsonObject load() {
    try {
      return JsonParser.parseString(Files.readString(Fixture.REPO.resolve("protocol.schema.json"))).getAsJsonObject();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theProtocolVersionIsTheSchemas() {
    assertEquals(SCHEMA.get("x-protocolVersion").getAsInt(), Protocol.VERSION);
  }

  @Test
  void everyRecordMatchesItsPlaceInTheSchema() {
    List<String> problems = new ArrayList<>();
    for (Class<?> c : Protocol.class.getDeclaredClasses()) {
      Protocol.Schema s = c.getAnnotation(Protocol.Schema.class);
      if (c.isRecord() && c != Protocol.Method.class && s == null) problems.add(c.getSimpleName() + " has no @Schema");
      if (s != null) check(c, resolve(s.value()), c.getSimpleName(), problems);
    }
    assertEquals(List.of(), problems);
  }

  @Test
  void everyMethodIsThereWithMatchingMessages() {
    List<String> problems = new ArrayList<>();
    Set<String> java = new TreeSet<>();
    for (Protocol.Method<?, ?> m : Protocol.METHODS) java.add(m.name());
    Set<String> schema = new TreeSet<>();
    for (JsonElement e : SCHEMA.getAsJsonArray("x-methods")) {
      JsonObject m = e.getAsJsonObject();
      String name = m.get("method").getAsString();
      schema.add(name);
      Protocol.Method<?, ?> jm = Protocol.METHODS.stream().filter(x -> x.name().equals(name)).findFirst().orElse(null);
      if (jm == null) continue;
      boolean notification = m.get("kind").getAsString().equals("notification");
      boolean s2c = m.get("direction").getAsString().equals("serverToClient");
      if (jm.notification() != notification) problems.add(name + ": notification is " + notification);
      if (jm.serverToClient() != s2c) problems.add(name + ": serverToClient is " + s2c);
      check(jm.params(), resolve(m.getAsJsonObject("params").get("$ref").getAsString()), name + " params", problems);
      if (m.has("result")) check(jm.result(), resolve(m.getAsJsonObject("result").get("$ref").getAsString()), name + " result", problems);
    }
    assertEquals(schema, java, "the methods of x-methods and Protocol.METHODS");
    assertEquals(List.of(), problems);
  }

  @Test
  void everyErrorCodeIsThere() throws Exception {
    Map<Integer, String> java = new java.util.TreeMap<>();
    for (var f : Protocol.Errors.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers())) java.put(f.getInt(null), f.getName().replace("_", "").toLowerCase());
    }
    Map<Integer, String> schema = new java.util.TreeMap<>();
    for (JsonElement e : SCHEMA.getAsJsonArray("x-errors")) {
      schema.put(e.getAsJsonObject().get("code").getAsInt(), e.getAsJsonObject().get("name").getAsString().toLowerCase());
    }
    assertEquals(schema, java);
  }

  @Test
  void theCheckFailsOnADifference() {
    // The checker itself: a record missing a property, one with an extra one, a wrong type.
    record Missing(String id) {}
    record Extra(String id, String project, String createdAt, String colour) {}
    record WrongType(int id, String project, String createdAt) {}
    JsonObject def = resolve("#/$defs/SessionNewResult");
    for (Class<?> c : List.of(Missing.class, Extra.class, WrongType.class)) {
      List<String> problems = new ArrayList<>();
      check(c, def, c.getSimpleName(), problems);
      assertTrue(!problems.isEmpty(), c.getSimpleName() + " should not pass");
    }
  }

  // ---- the checker ----

  static JsonObject resolve(String pointer) {
    if (!pointer.startsWith("#/")) throw new IllegalArgumentException(pointer);
    JsonElement at = SCHEMA;
    for (String part : pointer.substring(2).split("/")) {
      at = at.getAsJsonObject().get(part.replace("~1", "/").replace("~0", "~"));
      if (at == null) fail("no " + pointer + " in protocol.schema.json");
    }
    return deref(at.getAsJsonObject());
  }

  static JsonObject deref(JsonObject node) {
    return node.has("$ref") ? resolve(node.get("$ref").getAsString()) : node;
  }

  static void check(Class<?> record, JsonObject node, String where, List<String> problems) {
    if (!record.isRecord()) {
      problems.add(where + ": " + record.getSimpleName() + " is not a record");
      return;
    }
    JsonObject props = node.has("properties") ? node.getAsJsonObject("properties") : new JsonObject();
    Set<String> required = new TreeSet<>();
    if (node.has("required")) for (JsonElement r : node.getAsJsonArray("required")) required.add(r.getAsString());
    Set<String> javaNames = new TreeSet<>();
    for (RecordComponent rc : record.getRecordComponents()) javaNames.add(rc.getName());
    Set<String> schemaNames = new TreeSet<>(props.keySet());
    if (!javaNames.equals(schemaNames)) problems.add(where + ": fields " + javaNames + " but the schema has " + schemaNames);
    for (RecordComponent rc : record.getRecordComponents()) {
      JsonElement p = props.get(rc.getName());
      if (p == null) continue;
      JsonObject prop = p.isJsonObject() ? deref(p.getAsJsonObject()) : new JsonObject(); // `true`: anything
      boolean nullable = types(prop).contains("null");
      if (rc.getType().isPrimitive() && (!required.contains(rc.getName()) || nullable)) {
        problems.add(where + "." + rc.getName() + " is optional or nullable in the schema: it must be boxed");
      }
      checkType(rc.getGenericType(), prop, where + "." + rc.getName(), problems);
    }
  }

  static Set<String> types(JsonObject prop) {
    Set<String> out = new TreeSet<>();
    JsonElement t = prop.get("type");
    if (t != null && t.isJsonArray()) for (JsonElement x : t.getAsJsonArray()) out.add(x.getAsString());
    else if (t != null) out.add(t.getAsString());
    for (String k : List.of("anyOf", "oneOf")) {
      if (prop.has(k)) for (JsonElement alt : prop.getAsJsonArray(k)) out.addAll(types(deref(alt.getAsJsonObject())));
    }
    return out;
  }

  static void checkType(Type t, JsonObject prop, String where, List<String> problems) {
    Set<String> ts = new TreeSet<>(types(prop));
    ts.remove("null");
    Class<?> raw = t instanceof ParameterizedType pt ? (Class<?>) pt.getRawType() : (Class<?>) t;
    if (raw == JsonElement.class) return; // free-form: anything goes, kept verbatim
    String want = ts.size() == 1 ? ts.iterator().next() : ts.toString();
    String have;
    if (raw == String.class) have = "string";
    else if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class) have = "integer";
    else if (raw == double.class || raw == Double.class) have = "number";
    else if (raw == boolean.class || raw == Boolean.class) have = "boolean";
    else if (List.class.isAssignableFrom(raw)) have = "array";
    else if (raw.isRecord() || raw == JsonObject.class || Map.class.isAssignableFrom(raw)) have = "object";
    else if (raw.isEnum()) have = "string";
    else have = raw.getName();
    boolean ok = have.equals(want) || (have.equals("integer") && want.equals("number") && allIntegers(prop));
    if (!ok) {
      problems.add(where + ": Java " + have + " but the schema says " + want);
      return;
    }
    if (raw.isEnum()) checkEnum(raw, prop, where, problems);
    if (raw.isRecord()) check(raw, prop, where, problems);
    if (List.class.isAssignableFrom(raw) && t instanceof ParameterizedType pt && prop.has("prefixItems")) {
      for (JsonElement item : prop.getAsJsonArray("prefixItems")) { // a tuple: every position has the list's type
        checkType(pt.getActualTypeArguments()[0], deref(item.getAsJsonObject()), where + "[]", problems);
      }
    } else if (List.class.isAssignableFrom(raw) && t instanceof ParameterizedType pt && prop.has("items")) {
      JsonElement items = prop.get("items");
      checkType(pt.getActualTypeArguments()[0], items.isJsonObject() ? deref(items.getAsJsonObject()) : new JsonObject(), where + "[]", problems);
    }
  }

  /** `tier`: a number that is one of the constants 1, 2, 3. */
  static boolean allIntegers(JsonObject prop) {
    if (!prop.has("anyOf")) return false;
    for (JsonElement alt : prop.getAsJsonArray("anyOf")) {
      JsonObject a = alt.getAsJsonObject();
      if (!a.has("const") || a.get("const").getAsDouble() != Math.rint(a.get("const").getAsDouble())) return false;
    }
    return true;
  }

  static void checkEnum(Class<?> e, JsonObject prop, String where, List<String> problems) {
    Set<String> java = new TreeSet<>();
    for (var f : e.getFields()) {
      if (f.isEnumConstant()) {
        SerializedName n = f.getAnnotation(SerializedName.class);
        java.add(n != null ? n.value() : f.getName());
      }
    }
    Set<String> schema = new TreeSet<>();
    JsonArray values = prop.has("enum") ? prop.getAsJsonArray("enum") : new JsonArray();
    for (JsonElement v : values) schema.add(v.getAsString());
    if (!java.equals(schema)) problems.add(where + ": enum " + java + " but the schema has " + schema);
  }
}
