/// The version of Trawl, as `trawl --version` prints it and the default User-Agent names it.
public enum TrawlVersion {
    public static let string = "0.2.0"
}
