//! The clouds' token exchanges: what AWS STS, the EKS Pod Identity Agent (and
//! the EKS Auth API behind it), Microsoft Entra ID and Google's STS and IAM
//! Credentials answer when they refuse a projected ServiceAccount token, each
//! mapped to the cause it names.
//!
//! [`EXCHANGES`] is read in its order, the first row a line holds winning:
//! a service's specific messages stand before its bare error codes. ` … `
//! separates parts that stand in this order with anything between them. An
//! Entra row is read by its code (`AADSTS70021` is not `AADSTS700211`), and
//! a code the table does not list is still Entra's refusal: the last Entra
//! row, with no cause named. A row whose cause is `unknown` is a refusal the
//! service states without naming a fault of the token or of its federation.

use super::row::Cause;
use super::row::{Wording, w};

/// Any AWS service, as its SDKs print its answer.
const AWS: &str = "AWS";
const AWS_STS: &str = "AWS STS";
const AWS_IAM: &str = "AWS IAM";
const EKS_POD_IDENTITY: &str = "the EKS Pod Identity Agent";
const ENTRA: &str = "Microsoft Entra ID";
const AZURE_ARM: &str = "Azure Resource Manager";
const AZURE_KEY_VAULT: &str = "Azure Key Vault";
const AZURE_API: &str = "an Azure API";
const GOOGLE_STS: &str = "Google Cloud STS";
const GOOGLE_API: &str = "a Google Cloud API";
const OAUTH: &str = "an OAuth 2.0 token endpoint";
pub const GOOGLE_IAM: &str = "Google Cloud IAM";
const GOOGLE_METADATA: &str = "the metadata server";
const GOOGLE_TOKEN: &str = "Google Cloud STS or IAM Credentials";
const GOOGLE_AUTH_PYTHON_METADATA: &str = "github.com/googleapis/google-auth-library-python google/auth/compute_engine/_metadata.py (get)";
pub(super) const GOOGLE_AUTH_JAVA_GCE: &str = "github.com/googleapis/google-auth-library-java oauth2_http/java/com/google/auth/oauth2/ComputeEngineCredentials.java";

const STS_API: &str = "https://docs.aws.amazon.com/STS/latest/APIReference/API_AssumeRoleWithWebIdentity.html (Errors)";
const ASSUME_ROLE_DENIED: &str = "https://repost.aws/knowledge-center/iam-assume-role-error (the caller's permissions policy and the role's trust policy must both allow it)";
const GO_V1: &str = "github.com/aws/aws-sdk-go aws/awserr/types.go (requestError.Error: \"status code: %d, request id: %s\" under SprintError's \"CODE: MESSAGE\"), aws/credentials/stscreds/web_identity_provider.go (WebIdentityErr), v1.x";
const GO_V2: &str = "github.com/aws/aws-sdk-go-v2 aws/transport/http/response_error.go (\"https response error StatusCode: %d, RequestID: %s, %v\"); github.com/aws/smithy-go errors.go (OperationError \"operation error %s: %s, %v\", GenericAPIError \"api error %s: %s\"), v1.x";
const BOTOCORE: &str = "github.com/boto/botocore botocore/exceptions.py (ClientError.MSG_TEMPLATE: \"An error occurred ({error_code}) when calling the {operation_name} operation{retry_info}: {error_message}\"), 1.x (and the AWS CLI)";
const JAVA_V1: &str = "github.com/aws/aws-sdk-java aws-java-sdk-core/src/main/java/com/amazonaws/AmazonServiceException.java (getMessage: \"MESSAGE (Service: S; Status Code: N; Error Code: C; Request ID: R)\"), 1.x";
const JAVA_V2: &str = "github.com/aws/aws-sdk-java-v2 core/aws-core/src/main/java/software/amazon/awssdk/awscore/exception/AwsServiceException.java (getMessage: \"MESSAGE (Service: S, Status Code: N, Request ID: R)\"), 2.x";
const JS_V3: &str = "github.com/smithy-lang/smithy-typescript packages/types/src/response.ts (ResponseMetadata.httpStatusCode, the $metadata of every aws-sdk-js-v3 service exception, as Node's util.inspect prints it), v3.x";
const AWS_COMMON_ERRORS: &str = "https://docs.aws.amazon.com/STS/latest/APIReference/CommonErrors.html (ExpiredTokenException: the request's security token, the session credentials it was signed with)";
const IAM_DENIED: &str =
    "https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html";
/// A link-local endpoint a cloud SDK in a pod fetches credentials from, as
/// the address its error names: a connection that fails there never reached
/// the API server.
#[derive(Debug, PartialEq, Eq)]
pub struct CredentialEndpoint {
    pub address: &'static str,
    pub name: &'static str,
    /// What serves it, and what of that to check first.
    pub check: &'static str,
    pub source: &'static str,
}

const fn endpoint(
    address: &'static str,
    name: &'static str,
    check: &'static str,
    source: &'static str,
) -> CredentialEndpoint {
    CredentialEndpoint {
        address,
        name,
        check,
        source,
    }
}

/// The credential endpoint whose address `text` names.
pub fn credential_endpoint_in(text: &str) -> Option<&'static CredentialEndpoint> {
    CREDENTIAL_ENDPOINTS
        .iter()
        .find(|e| text.contains(e.address))
}

const POD_IDENTITY_AGENT_RUNS: &str = "the agent runs as the DaemonSet eks-pod-identity-agent in kube-system, on the node's network: is its pod on this node ready?";
const POD_IDENTITY_HOW: &str =
    "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-how-it-works.html";
const IMDS_HOPS: &str = "IMDSv2 answers a pod only when the instance's hop limit is 2 or more (a pod is one hop more than the node)";

pub const CREDENTIAL_ENDPOINTS: &[CredentialEndpoint] = &[
    endpoint(
        "169.254.170.23",
        "the EKS Pod Identity Agent",
        POD_IDENTITY_AGENT_RUNS,
        POD_IDENTITY_HOW,
    ),
    endpoint(
        "fd00:ec2::23",
        "the EKS Pod Identity Agent",
        POD_IDENTITY_AGENT_RUNS,
        POD_IDENTITY_HOW,
    ),
    endpoint(
        "169.254.170.2",
        "the ECS container credentials endpoint",
        "the ECS agent serves it to ECS and Fargate tasks only",
        "https://docs.aws.amazon.com/sdkref/latest/guide/feature-container-credentials.html",
    ),
    endpoint(
        "169.254.169.254",
        "the instance metadata service",
        IMDS_HOPS,
        "AWS, Azure and Google Cloud serve instance metadata at this address (on GKE with Workload Identity, the gke-metadata-server DaemonSet answers it)",
    ),
    endpoint(
        "fd00:ec2::254",
        "the instance metadata service",
        IMDS_HOPS,
        "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html",
    ),
    endpoint(
        "metadata.google.internal",
        "the metadata server",
        "on GKE with Workload Identity, the gke-metadata-server DaemonSet in kube-system answers it: is its pod on this node ready?",
        "https://cloud.google.com/kubernetes-engine/docs/concepts/workload-identity",
    ),
];

const EKS_AUTH_API: &str = "https://docs.aws.amazon.com/eks/latest/APIReference/API_auth_AssumeRoleForPodIdentity.html (Errors)";
const POD_IDENTITY_AGENT: &str = "github.com/aws/eks-pod-identity-agent internal/validation/request.go, pkg/errors/errors.go (v0.1.17-v0.1.37)";
const POD_IDENTITY_VALIDATOR: &str = "github.com/aws/eks-pod-identity-agent internal/validation/token_validator.go, claims_validation.go (after v0.1.37); golang-jwt/jwt v5 errors.go";
const AGENT_ERRORS: &str = "github.com/aws/eks-pod-identity-agent pkg/errors/errors.go ((CODE): MESSAGE, fault: client), v0.1.17-v0.1.37; codes from the EKS Auth API reference";
const ENTRA_CODES: &str =
    "https://learn.microsoft.com/entra/identity-platform/reference-error-codes";
const GOOGLE_STS_API: &str = "https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token; https://cloud.google.com/iam/docs/troubleshooting-workload-identity-federation";
const X_OAUTH2: &str = "golang.org/x/oauth2 token.go (RetrieveError.Error: \"oauth2: cannot fetch token: STATUS\\nResponse: BODY\"; from v0.10 \"oauth2: \\\"CODE\\\" \\\"DESCRIPTION\\\"\" when the body names one); client-go plugin/pkg/client/auth/oidc/oidc.go (\"failed to refresh token: %v\")";
const GOOGLE_GO: &str = "github.com/googleapis/google-api-go-client googleapi/googleapi.go (Error.Error: \"googleapi: Error %d: %s\", and \"googleapi: got HTTP response code %d with body: %v\" without a message)";
const KEY_VAULT_ACCESS: &str =
    "https://learn.microsoft.com/azure/key-vault/general/troubleshooting-access-issues";
const AUTOREST: &str = "github.com/Azure/go-autorest autorest/azure/azure.go (ServiceError: \"autorest/azure: Service returned an error. Status=%v Code=%q Message=%q\")";
const AZURE_CORE: &str = "github.com/Azure/azure-sdk-for-python sdk/core/azure-core azure/core/exceptions.py (HttpResponseError); azure-sdk-for-net Azure.Core RequestFailedException (\"Status: %d (%s)\")";
const GOOGLE_JAVA: &str = "github.com/googleapis/google-api-java-client google-api-client/src/main/java/com/google/api/client/googleapis/json/GoogleJsonResponseException.java (\"CODE PHRASE\" then the error JSON)";
const IAM_CREDENTIALS_API: &str = "https://cloud.google.com/iam/docs/reference/credentials/rest/v1/projects.serviceAccounts/generateAccessToken";

/// Whose identity and access management judged a call: it decides how to
/// ask who the caller is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cloud {
    Aws,
    Google,
    Azure,
}

/// The cloud a row's service belongs to.
pub fn cloud_of(service: &str) -> Option<Cloud> {
    match service {
        AWS | AWS_STS | AWS_IAM | EKS_POD_IDENTITY => Some(Cloud::Aws),
        GOOGLE_STS | GOOGLE_IAM | GOOGLE_API | GOOGLE_METADATA | GOOGLE_TOKEN => {
            Some(Cloud::Google)
        }
        ENTRA | AZURE_ARM | AZURE_KEY_VAULT | AZURE_API => Some(Cloud::Azure),
        _ => None,
    }
}

/// The clouds' refusals, in the order they are read.
#[rustfmt::skip]
pub const EXCHANGES: &[Wording] = &[
    // AWS STS, AssumeRoleWithWebIdentity (IRSA). The token's aud is not a
    // client ID of the account's OIDC provider (sts.amazonaws.com by default).
    w(AWS_STS, "Incorrect token audience", "all (InvalidIdentityToken)", Some(Cause::CloudFederationMismatch), STS_API),
    w(AWS_STS, "No OpenIDConnect provider found in your account", "all (InvalidIdentityToken)", Some(Cause::CloudOidcProviderMissing), STS_API),
    w(AWS_STS, "Not authorized to perform sts:AssumeRoleWithWebIdentity", "all (AccessDenied)", Some(Cause::CloudTrustPolicyDenied), STS_API),
    w(AWS_STS, "Token expired: current date/time", "all (ExpiredTokenException, InvalidIdentityToken)", Some(Cause::Expired), STS_API),
    w(AWS_STS, "Couldn't retrieve verification key from your identity provider", "all (InvalidIdentityToken, IDPCommunicationError)", Some(Cause::CloudOidcDiscoveryFailed), STS_API),
    w(AWS_STS, "OpenIDConnect provider's HTTPS certificate doesn't match configured thumbprint", "all (InvalidIdentityToken)", Some(Cause::CloudOidcDiscoveryFailed), STS_API),
    // What STS was given is no JWT (an access token, an empty or cut file).
    w(AWS_STS, "The ID Token provided is not a valid JWT", "all (InvalidIdentityToken)", Some(Cause::TokenMalformed), STS_API),
    // The role ARN is checked before the token (AWS_ROLE_ARN, from the
    // ServiceAccount's eks.amazonaws.com/role-arn annotation).
    w(AWS_STS, "Request ARN is invalid", "all (ValidationError)", Some(Cause::CloudRoleArnInvalid), STS_API),
    w(AWS_STS, "at 'roleArn' failed to satisfy constraint", "all (ValidationError)", Some(Cause::CloudRoleArnInvalid), STS_API),
    w(AWS_STS, "ExpiredTokenException) when calling the AssumeRoleWithWebIdentity", "all (botocore)", Some(Cause::Expired), STS_API),
    w(AWS_STS, "AssumeRoleWithWebIdentity, … ExpiredTokenException: ", "aws-sdk-go-v2 1.x", Some(Cause::Expired), STS_API),
    w(AWS_STS, "(Service: AWSSecurityTokenService; … Error Code: ExpiredTokenException", "aws-sdk-java 1.x", Some(Cause::Expired), STS_API),
    // aws-sdk-go's web identity provider around STS's answer, on one line
    // where a log quotes the error (`\ncaused by: ` escaped): on lines of
    // their own, `caused by: ExpiredTokenException` names no service (every
    // JSON-protocol API's code for the caller's expired session).
    w(AWS_STS, "WebIdentityErr: … ExpiredTokenException: ", "aws-sdk-go 1.x", Some(Cause::Expired), GO_V1),
    w(AWS_STS, "IDPCommunicationError", "all", Some(Cause::CloudOidcDiscoveryFailed), STS_API),
    // The identity provider's claims (iss, sub, aud) were refused.
    w(AWS_STS, "IDPRejectedClaim", "all", Some(Cause::CloudFederationMismatch), STS_API),
    // Codes that name no cause, read only with their message on the line
    // (botocore's `(CODE) when calling the OPERATION operation: MESSAGE`, the
    // Go SDKs' `CODE: MESSAGE`): in STS's XML the `<Message>` line beneath
    // `<Code>` may name one.
    w(AWS_STS, "InvalidIdentityToken: ", "all (a message the rows above do not hold)", Some(Cause::Unknown), STS_API),
    w(AWS_STS, "MalformedPolicyDocument: ", "all (the session policy, not the token)", Some(Cause::Unknown), STS_API),
    w(AWS_STS, "PackedPolicyTooLarge: ", "all (the session policy, not the token)", Some(Cause::Unknown), STS_API),
    w(AWS_STS, "RegionDisabledException: ", "all (STS not activated in the region)", Some(Cause::Unknown), STS_API),
    // STS's answer to the exchange, whatever its code and message
    // (`AccessDenied` is every AWS API's: its code alone names no service).
    w(AWS_STS, "when calling the AssumeRoleWithWebIdentity operation", "botocore 1.x", Some(Cause::Unknown), BOTOCORE),
    w(AWS_IAM, "Roles may not be assumed by root accounts", "all", Some(Cause::CloudCallerDenied), IAM_DENIED),
    ASSUME_ROLE_REFUSED,
    w(AWS_IAM, "is not authorized to perform: ", "all", Some(Cause::CloudCallerDenied), IAM_DENIED),
    // botocore's form of an AWS API's refusal of the caller; STS, the one that
    // judges the projected token, says `AccessDenied` instead.
    w(AWS_IAM, "(AccessDeniedException) when calling the", "all", Some(Cause::CloudCallerDenied), IAM_DENIED),
    // Any AWS API's refusal of expired session credentials (the ones STS
    // issued for the projected token, which the SDK did not renew): not the
    // ServiceAccount token, whose expiry STS words otherwise (`Token expired:`).
    w(AWS, "The security token included in the request is expired", "all (ExpiredToken, ExpiredTokenException)", Some(Cause::Unknown), AWS_COMMON_ERRORS),
    // Any AWS API's answer, as botocore prints it.
    w(AWS, "An error occurred ( … ) when calling the ", "botocore 1.x", Some(Cause::Unknown), BOTOCORE),
    // EKS Pod Identity: the agent checks the token's form, EKS Auth the rest.
    w(EKS_POD_IDENTITY, "AssumeRoleForPodIdentity … ResourceNotFoundException", "all", Some(Cause::PodIdentityAssociationMissing), EKS_AUTH_API),
    w(EKS_POD_IDENTITY, "AssumeRoleForPodIdentity … ExpiredTokenException", "all", Some(Cause::Expired), EKS_AUTH_API),
    w(EKS_POD_IDENTITY, "(ResourceNotFoundException): … fault: ", "v0.1.17+", Some(Cause::PodIdentityAssociationMissing), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(ExpiredTokenException): … fault: ", "v0.1.17+", Some(Cause::Expired), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(InvalidTokenException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(AccessDeniedException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    // EKS Auth's other codes: a request it could not take, its own rate or
    // availability; none says what of the token or its association is wrong.
    w(EKS_POD_IDENTITY, "(InvalidParameterException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(InvalidRequestException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(ThrottlingException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(ServiceUnavailableException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    w(EKS_POD_IDENTITY, "(InternalServerException): … fault: ", "v0.1.17+", Some(Cause::Unknown), AGENT_ERRORS),
    // The SDK sent the agent no token (an empty or unread token file,
    // AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE): not token-not-sent, whose
    // steps are about kube-apiserver's Authorization header.
    w(EKS_POD_IDENTITY, "Service account token cannot be empty", "v0.1.17+", Some(Cause::Unknown), POD_IDENTITY_AGENT),
    w(EKS_POD_IDENTITY, "Service account token cannot be parsed", "v0.1.17+", Some(Cause::TokenMalformed), POD_IDENTITY_AGENT),
    // golang-jwt v5's registered claims: exp, then nbf and iat (a clock
    // behind, or a token not yet valid), which name no cause alone.
    w(EKS_POD_IDENTITY, "Service account token failed basic claim validations … token is expired", "v0.1.17+", Some(Cause::Expired), POD_IDENTITY_AGENT),
    w(EKS_POD_IDENTITY, "Service account token failed basic claim validations", "v0.1.17+", Some(Cause::Unknown), POD_IDENTITY_AGENT),
    // Later agents check the token themselves: its claims (a pod-bound
    // token, a kid, the audience pods.eks.amazonaws.com the webhook
    // projects: another token file's fails here), then its signature with
    // kube-apiserver's own JWKS (/openid/v1/jwks), whose kid lookup and
    // signature are the cluster's keys', and golang-jwt v5's exp.
    w(EKS_POD_IDENTITY, "JWT signature validation failed: … no matching key found for kid", "after v0.1.37", Some(Cause::KeyMismatch), POD_IDENTITY_VALIDATOR),
    w(EKS_POD_IDENTITY, "JWT signature validation failed: … token has invalid claims: token is expired", "after v0.1.37", Some(Cause::Expired), POD_IDENTITY_VALIDATOR),
    w(EKS_POD_IDENTITY, "JWT signature validation failed: … token signature is invalid", "after v0.1.37", Some(Cause::SignatureInvalid), POD_IDENTITY_VALIDATOR),
    w(EKS_POD_IDENTITY, "JWT signature validation failed: ", "after v0.1.37", Some(Cause::Unknown), POD_IDENTITY_VALIDATOR),
    w(EKS_POD_IDENTITY, "Service account token failed claim validations: ", "after v0.1.37", Some(Cause::Unknown), POD_IDENTITY_VALIDATOR),
    // The SDK called the agent at an address other than its link-local one.
    w(EKS_POD_IDENTITY, "Access Denied. Called agent through invalid address", "v0.1.17+", Some(Cause::Unknown), POD_IDENTITY_AGENT),
    // Microsoft Entra ID, federated identity credentials (Azure workload
    // identity). No credential matches the token's issuer, subject and
    // audience (70021), or one of them (700211-700213).
    w(ENTRA, "AADSTS70021: No matching federated identity record found for presented assertion.", "all", Some(Cause::CloudFederationMismatch), ENTRA_CODES),
    w(ENTRA, "AADSTS700211: No matching federated identity record found for presented assertion issuer.", "all", Some(Cause::CloudFederationMismatch), ENTRA_CODES),
    w(ENTRA, "AADSTS700212: No matching federated identity record found for presented assertion audience.", "all", Some(Cause::CloudFederationMismatch), ENTRA_CODES),
    w(ENTRA, "AADSTS700213: No matching federated identity record found for presented assertion subject.", "all", Some(Cause::CloudFederationMismatch), ENTRA_CODES),
    // The assertion (the projected token) is outside its nbf..exp.
    w(ENTRA, "AADSTS700024: Client assertion is not within its valid time range.", "all", Some(Cause::Expired), ENTRA_CODES),
    w(ENTRA, "AADSTS700016: Application with identifier 'CLIENT_ID' was not found in the directory 'TENANT'.", "all", Some(Cause::CloudClientNotFound), ENTRA_CODES),
    w(ENTRA, "AADSTS501661: Request to External OIDC endpoint failed.", "all", Some(Cause::CloudOidcDiscoveryFailed), ENTRA_CODES),
    w(ENTRA, "AADSTS50027: JWT token is invalid or malformed.", "all", Some(Cause::TokenMalformed), ENTRA_CODES),
    // Not the ServiceAccount token: the app sent a secret, or named a
    // tenant that does not exist, or the assertion's signature matched no
    // key the issuer publishes.
    w(ENTRA, "AADSTS7000215: Invalid client secret provided.", "all", Some(Cause::Unknown), ENTRA_CODES),
    w(ENTRA, "AADSTS90002: Tenant 'TENANT' not found.", "all", Some(Cause::Unknown), ENTRA_CODES),
    w(ENTRA, "AADSTS700027: Client assertion failed signature validation.", "all", Some(Cause::Unknown), ENTRA_CODES),
    w(ENTRA, "AADSTS", "all (a code the rows above do not hold)", Some(Cause::Unknown), ENTRA_CODES),
    // MSAL for Go's printing of the token endpoint's answer without an
    // AADSTS code (the body follows on the next line).
    w(ENTRA, "http call( … ) error: reply status code was", "microsoft-authentication-library-for-go 0.x-1.x (CallErr)", Some(Cause::Unknown), "github.com/AzureAD/microsoft-authentication-library-for-go apps/internal/oauth/ops/internal/comm/comm.go"),
    // Azure Resource Manager refusing the caller (az aks get-credentials,
    // kubelogin's Azure CLI mode): Azure RBAC, not the cluster's.
    w(AZURE_ARM, "does not have authorization to perform action", "all (AuthorizationFailed)", Some(Cause::CloudCallerDenied), "https://learn.microsoft.com/azure/azure-resource-manager/troubleshooting/error-codes (AuthorizationFailed)"),
    // Key Vault refusing the workload's identity (the Secrets Store CSI
    // driver, External Secrets): its access policy, or Azure RBAC on it.
    w(AZURE_KEY_VAULT, "does not have … permission on key vault", "access policies (Forbidden)", Some(Cause::CloudCallerDenied), KEY_VAULT_ACCESS),
    w(AZURE_KEY_VAULT, "Caller is not authorized to perform action on resource", "Azure RBAC (ForbiddenByRbac)", Some(Cause::CloudCallerDenied), KEY_VAULT_ACCESS),
    // Google Cloud STS (workload identity federation) and IAM Credentials
    // (impersonating a Google service account).
    w(GOOGLE_STS, "The audience in ID Token", "v1 (invalid_grant)", Some(Cause::CloudFederationMismatch), GOOGLE_STS_API),
    w(GOOGLE_STS, "The issuer in ID Token", "v1 (invalid_grant)", Some(Cause::CloudFederationMismatch), GOOGLE_STS_API),
    w(GOOGLE_STS, "is stale to sign-in", "v1 (invalid_grant)", Some(Cause::Expired), GOOGLE_STS_API),
    w(GOOGLE_STS, "rejected by the attribute condition", "v1 (unauthorized_client)", Some(Cause::CloudFederationMismatch), GOOGLE_STS_API),
    // The audience names a pool or provider that is disabled, deleted or was
    // never made: the causes' steps are AWS's, so none is named.
    w(GOOGLE_STS, "The target service indicated by the … parameters is invalid", "v1 (invalid_target)", Some(Cause::Unknown), GOOGLE_STS_API),
    // A Google API refused the credential itself (google.rpc.Code 16,
    // UNAUTHENTICATED): with workload identity federation, STS's federated
    // token sent to an API that takes none, not exchanged for a service
    // account's (generateAccessToken).
    w(GOOGLE_API, "Request had invalid authentication credentials", "all (UNAUTHENTICATED, 401)", Some(Cause::Unknown), "https://cloud.google.com/iam/docs/troubleshooting-workload-identity-federation (Google Cloud API does not accept the credential issued from SecurityTokenService)"),
    w(GOOGLE_IAM, "Permission 'iam.serviceAccounts.getAccessToken' denied", "v1", Some(Cause::CloudCallerDenied), IAM_CREDENTIALS_API),
    w(GOOGLE_IAM, "denied on resource", "all", Some(Cause::CloudCallerDenied), "https://cloud.google.com/iam/docs/troubleshooting-access"),
    // The GKE metadata server (Workload Identity) could not impersonate the
    // Google service account the KSA is annotated with: the KSA lacks
    // roles/iam.workloadIdentityUser on it (or the account does not exist).
    // The GKE metadata server's own refusal (a missing Metadata-Flavor
    // header, a KSA it does not map): its words say which.
    // google-cloud-go's metadata client for the server's 404: no such path
    // (no token or identity for the service account asked for; on GKE with
    // Workload Identity, a KSA bound to no Google service account).
    w(GOOGLE_METADATA, "GCE metadata … not defined", "all (NotDefinedError)", Some(Cause::Unknown), "github.com/googleapis/google-cloud-go compute/metadata/metadata.go (NotDefinedError: the server's 404)"),
    // google-auth (Python, Java) printing the metadata server's status for
    // a token (a 404: no such service account; others its own).
    w(GOOGLE_METADATA, "from the Google Compute Engine metadata service. Status: ", "google-auth-library-python 1.x-2.x (TransportError)", Some(Cause::Unknown), GOOGLE_AUTH_PYTHON_METADATA),
    w(GOOGLE_METADATA, "Compute Engine Metadata server unavailable. Response status: ", "google-auth-library-python 2.x (TransportError after its retries)", Some(Cause::Unknown), GOOGLE_AUTH_PYTHON_METADATA),
    w(GOOGLE_METADATA, "trying to get security access token from Compute Engine metadata", "google-auth-library-java 1.x (IOException: `Error code N` or `Unexpected Error code N`)", Some(Cause::Unknown), GOOGLE_AUTH_JAVA_GCE),
    w(GOOGLE_METADATA, "GKE Metadata Server encountered an error", "GKE Workload Identity (gke-metadata-server)", Some(Cause::Unknown), "GKE's answers (its metadata server is not published)"),
    w(GOOGLE_IAM, "Unable to generate access token; IAM returned 403 Forbidden", "all (the GKE metadata server)", Some(Cause::CloudCallerDenied), "https://cloud.google.com/kubernetes-engine/docs/troubleshooting/troubleshooting-security (Workload Identity: \"Unable to generate access token\")"),
    // A Google API's PERMISSION_DENIED for the caller (the GKE API's, as gcloud
    // prints it: `ResponseError: code=403, message=Required …`).
    w(GOOGLE_IAM, "Required \" … \" permission(s) for", "all", Some(Cause::CloudCallerDenied), "https://cloud.google.com/kubernetes-engine/docs/reference/api-permissions; https://cloud.google.com/kubernetes-engine/docs/troubleshooting"),
    // Any Google API's refusal of the caller in Google's error model
    // (google.rpc.Code 7, HTTP 403), as the Go and Python auth libraries
    // quote it: IAM Credentials' generateAccessToken says only "The caller
    // does not have permission".
    w(GOOGLE_IAM, "PERMISSION_DENIED", "all (google.rpc.Code PERMISSION_DENIED)", Some(Cause::CloudCallerDenied), "https://cloud.google.com/apis/design/errors (Handling errors: PERMISSION_DENIED, 403)"),
    // Google's STS or IAM Credentials answered the exchange or the
    // impersonation with an error the rows above do not hold, as
    // golang.org/x/oauth2/google and google-auth (Python) print it.
    w(GOOGLE_TOKEN, "oauth2/google: status code … : ", "golang.org/x/oauth2 0.1+", Some(Cause::Unknown), "golang.org/x/oauth2 google/internal/stsexchange/sts_exchange.go, google/internal/impersonate/impersonate.go (\"oauth2/google: status code %d: %s\")"),
    w(GOOGLE_IAM, "Unable to acquire impersonated credentials", "google-auth 1.x-2.x (Python; IAM Credentials' answer follows)", Some(Cause::Unknown), "github.com/googleapis/google-auth-library-python google/auth/impersonated_credentials.py (_REFRESH_ERROR)"),
    // Any OAuth 2.0 token endpoint (an identity provider's, a cloud STS's)
    // refusing to issue or refresh a token, as golang.org/x/oauth2 words it
    // for client-go's oidc and gcp auth-providers, kubelogin and the clouds'
    // Go SDKs: its status is the token endpoint's, no request reached
    // kube-apiserver, and the grant it judged (a login's refresh token, an
    // assertion) is named only by its body.
    w(OAUTH, "oauth2: cannot fetch token: ", "all", Some(Cause::Unknown), X_OAUTH2),
    w(OAUTH, "oauth2: \"", "v0.10+", Some(Cause::Unknown), X_OAUTH2),
    // google-auth (Python) raises a token endpoint's answer as a tuple (its
    // error and description, then the body); its other RefreshErrors (a
    // credential file not there, the metadata server not answering) are
    // its own setup's, read with the setup failures.
    w(OAUTH, "google.auth.exceptions.RefreshError: ('", "google-auth 1.x-2.x (Python)", Some(Cause::Unknown), "github.com/googleapis/google-auth-library-python google/auth/exceptions.py, google/oauth2/_client.py (_handle_error_response: the token endpoint's error and error_description, then its body)"),
];

/// AssumeRole (not the web identity exchange) needs the caller's policy and
/// the role's trust policy: the refusal does not say which said no.
const ASSUME_ROLE_REFUSED: Wording = w(
    AWS_IAM,
    "is not authorized to perform: sts:AssumeRole on resource",
    "all",
    Some(Cause::Unknown),
    ASSUME_ROLE_DENIED,
);

/// Refusals that name no cause but leave these few, listed as candidates
/// whose steps tell them apart.
pub const UNDECIDED: &[(Wording, &[Cause])] = &[(
    ASSUME_ROLE_REFUSED,
    &[Cause::CloudTrustPolicyDenied, Cause::CloudCallerDenied],
)];

/// A cloud API's answer as its SDKs print it (AWS's Go, Java and JS SDKs,
/// Google's Go and Java clients, Azure's go-autorest, Python and .NET cores), read only where the line states the status (Go's
/// `StatusCode: 0` is a request that got no answer): the status is that
/// API's own, its refusal the cloud's, never kube-apiserver's RBAC or
/// authentication. Read after [`EXCHANGES`], whose
/// rows name a cause.
#[rustfmt::skip]
pub const ENVELOPES: &[Wording] = &[
    w(AWS_STS, "AssumeRoleWithWebIdentity, … https response error StatusCode: ", "aws-sdk-go-v2 1.x", Some(Cause::Unknown), GO_V2),
    w(AWS_STS, "(Service: AWSSecurityTokenService; Status Code: ", "aws-sdk-java 1.x", Some(Cause::Unknown), JAVA_V1),
    w(AWS_STS, "(Service: Sts, Status Code: ", "aws-sdk-java 2.x", Some(Cause::Unknown), JAVA_V2),
    w(AWS, "operation error … https response error StatusCode: ", "aws-sdk-go-v2 1.x", Some(Cause::Unknown), GO_V2),
    w(AWS, "status code: … , request id: ", "aws-sdk-go 1.x", Some(Cause::Unknown), GO_V1),
    w(AWS, "(Service: … ; Status Code: … ; Error Code: ", "aws-sdk-java 1.x", Some(Cause::Unknown), JAVA_V1),
    w(AWS, "(Service: … , Status Code: … , Request ID: ", "aws-sdk-java 2.x", Some(Cause::Unknown), JAVA_V2),
    w(AWS, "httpStatusCode: ", "aws-sdk-js 3.x", Some(Cause::Unknown), JS_V3),
    // Any Google API's answer as its Go client prints it.
    w(GOOGLE_API, "googleapi: Error ", "google.golang.org/api 0.x", Some(Cause::Unknown), GOOGLE_GO),
    w(GOOGLE_API, "googleapi: got HTTP response code ", "google.golang.org/api 0.x", Some(Cause::Unknown), GOOGLE_GO),
    w(GOOGLE_API, "GoogleJsonResponseException: ", "google-api-java-client 1.x-2.x", Some(Cause::Unknown), GOOGLE_JAVA),
    // The metadata server's answer (on GKE with Workload Identity, the
    // gke-metadata-server's, which relays IAM's refusals), as its Go client
    // prints a status other than 200 and 404.
    w(GOOGLE_METADATA, "compute: Received ", "cloud.google.com/go/compute/metadata (Error: \"compute: Received %d `%s`\")", Some(Cause::Unknown), "github.com/googleapis/google-cloud-go compute/metadata/metadata.go (Error.Error)"),
    // Any Azure API's answer as its SDKs print it.
    w(AZURE_API, "autorest/azure: Service returned an error. Status=", "go-autorest (the Azure SDK for Go before azcore)", Some(Cause::Unknown), AUTOREST),
    w(AZURE_API, "azure.core.exceptions.HttpResponseError: ", "azure-core for Python 1.x", Some(Cause::Unknown), AZURE_CORE),
    w(AZURE_API, "Azure.RequestFailedException: ", "Azure.Core for .NET 1.x", Some(Cause::Unknown), AZURE_CORE),
];
