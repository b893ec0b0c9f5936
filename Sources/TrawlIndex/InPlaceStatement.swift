import GRDB
import GRDBSQLite

/// A prepared statement run through SQLite's C API with its text bound in place: pointers into
/// a buffer the caller keeps alive (`SQLITE_STATIC`), instead of GRDB's argument arrays, which
/// box each value and have SQLite copy each string (the insert path binds ten columns
/// a row, a million rows).
///
/// GRDB's ``GRDB/Statement`` owns the C statement (it finalizes it); this borrows it for the
/// length of one write and is not kept past it. Every ``run()`` or ``fetchInt64()`` resets the
/// statement and clears its bindings, whatever happens, so SQLite never holds a pointer past
/// the step it was bound for.
struct InPlaceStatement {
    /// Kept so the C statement outlives this value whatever GRDB's cache does.
    private let owner: Statement
    private let handle: SQLiteStatement
    private let connection: SQLiteConnection?
    private let sql: String

    init(_ statement: Statement, in db: Database) {
        owner = statement
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
        sql = statement.sql
        // GRDB may have left its own arguments bound, or a query not run to its end.
        clear()
    }

    /// Binds parameter `index` (1-based) to `field` of the buffer at `base`: text, or `NULL`.
    func bindText(_ index: Int32, _ field: PreparedGroup.Field, in base: UnsafePointer<UInt8>) throws {
        let code =
            field.isNull
            ? sqlite3_bind_null(handle, index)
            : sqlite3_bind_text(handle, index, UnsafeRawPointer(base + Int(field.start)).assumingMemoryBound(to: CChar.self), field.count, nil)
        try check(code, "binding parameter \(index)")
    }

    /// Binds parameter `index` to `field` as a blob.
    func bindBlob(_ index: Int32, _ field: PreparedGroup.Field, in base: UnsafePointer<UInt8>) throws {
        let code =
            field.isNull
            ? sqlite3_bind_null(handle, index)
            : sqlite3_bind_blob(handle, index, base + Int(field.start), field.count, nil)
        try check(code, "binding parameter \(index)")
    }

    func bind(_ index: Int32, _ value: Int64) throws {
        try check(sqlite3_bind_int64(handle, index, value), "binding parameter \(index)")
    }

    func bind(_ index: Int32, _ value: Double) throws {
        try check(sqlite3_bind_double(handle, index, value), "binding parameter \(index)")
    }

    /// Binds parameter `index` to `value`, or `NULL`.
    func bind(_ index: Int32, _ value: Int64?) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index), "binding parameter \(index)") }
        try bind(index, value)
    }

    /// Binds parameter `index` to `value`, or `NULL`.
    func bind(_ index: Int32, _ value: Double?) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index), "binding parameter \(index)") }
        try bind(index, value)
    }

    /// Binds parameter `index` to `text`, copied by SQLite (`SQLITE_TRANSIENT`): for a value
    /// bound once per statement, such as a search's match expression.
    func bind(_ index: Int32, _ text: String) throws {
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        try check(sqlite3_bind_text(handle, index, text, -1, transient), "binding parameter \(index)")
    }

    /// The current row of a query, read by column (0-based); valid only inside
    /// ``forEachRow(_:)``'s body.
    struct Columns {
        fileprivate let handle: SQLiteStatement

        func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    }

    /// Runs a query, handing `body` each row in turn.
    func forEachRow(_ body: (Columns) throws -> Void) throws {
        defer { clear() }
        while true {
            let code = sqlite3_step(handle)
            switch code {
            case SQLITE_ROW: try body(Columns(handle: handle))
            case SQLITE_DONE: return
            default: throw failure(code)
            }
        }
    }

    /// Runs the statement to its end (an INSERT, UPDATE or DELETE).
    func run() throws {
        defer { clear() }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    /// Runs a query for one integer: the first column of its first row, `nil` when none.
    func fetchInt64() throws -> Int64? {
        defer { clear() }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return sqlite3_column_int64(handle, 0)
        case SQLITE_DONE: return nil
        default: throw failure(code)
        }
    }

    private func clear() {
        // Their results repeat the step's error, already thrown.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func check(_ code: Int32, _ what: String) throws {
        guard code == SQLITE_OK else {
            clear()
            throw failure(code, what)
        }
    }

    private func failure(_ code: Int32, _ what: String? = nil) -> DatabaseError {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection"
        return DatabaseError(
            resultCode: ResultCode(rawValue: code), message: what.map { "\($0): \(message)" } ?? message, sql: sql)
    }
}
